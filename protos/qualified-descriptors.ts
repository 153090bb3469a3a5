import type { PackageDefinition } from '@grpc/proto-loader';
// protobufjs's descriptor extension (a dependency of @grpc/proto-loader): FileDescriptorProto codecs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const descriptor = require('protobufjs/ext/descriptor') as {
  FileDescriptorProto: { decode(bytes: Uint8Array): FileProto; encode(file: FileProto): { finish(): Uint8Array } };
};

interface FieldProto {
  name?: string;
  typeName?: string;
}
interface MessageProto {
  name?: string;
  options?: { mapEntry?: boolean };
  field?: FieldProto[];
  nestedType?: MessageProto[];
  enumType?: Array<{ name?: string }>;
}
interface FileProto {
  name?: string;
  package?: string;
  dependency?: string[];
  messageType?: MessageProto[];
  enumType?: Array<{ name?: string }>;
  service?: Array<{ method?: Array<{ inputType?: string; outputType?: string }> }>;
}

/** protoc's name for a map field's entry type: the field's name in CamelCase, then Entry ("task_context": "TaskContextEntry"). */
const mapEntryName = (field: string) => `${field.replace(/(?:^|_)(.)/g, (_match, letter: string) => letter.toUpperCase())}Entry`;

/**
 * A map field's entry type must have protoc's name, which reflection clients check (grpcurl:
 * "incorrect implicit map entry name"); protobufjs names it after the field as written.
 */
function nameMapEntries(messages: MessageProto[] = []): void {
  for (const message of messages) {
    for (const entry of message.nestedType ?? []) {
      if (!entry.options?.mapEntry) continue;
      const old = entry.name ?? '';
      const fields = (message.field ?? []).filter((field) => field.typeName === old || field.typeName?.endsWith(`.${message.name}.${old}`));
      if (!fields[0]?.name) continue;
      const name = mapEntryName(fields[0].name);
      entry.name = name;
      for (const field of fields) field.typeName = `${field.typeName!.slice(0, -old.length)}${name}`;
    }
    nameMapEntries(message.nestedType);
  }
}

/**
 * proto-loader describes cross-package references relatively ("common.ExecutionMode"), which
 * grpcurl and other reflection clients cannot resolve (grpc/grpc-node #2958, #3018). This rewrites
 * every reference in the definition's file descriptors to its fully qualified name and declares the
 * files it comes from as dependencies, in place.
 */
export function qualifyTypeNames(definition: PackageDefinition): PackageDefinition {
  const arrays = new Set<Buffer[]>();
  for (const entry of Object.values(definition)) {
    const files = (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos;
    if (Array.isArray(files)) arrays.add(files);
    for (const method of Object.values(entry as object)) {
      const nested = (method as { requestType?: { fileDescriptorProtos?: Buffer[] } })?.requestType?.fileDescriptorProtos;
      if (Array.isArray(nested)) arrays.add(nested);
    }
  }
  for (const files of arrays) {
    const decoded = files.map((bytes) => descriptor.FileDescriptorProto.decode(bytes));
    for (const file of decoded) nameMapEntries(file.messageType);
    // Every type's fully qualified name, and the file that defines it.
    const owner = new Map<string, string>();
    const collect = (file: string, scope: string, messages: MessageProto[] = [], enums: Array<{ name?: string }> = []) => {
      for (const e of enums) owner.set(`${scope}.${e.name}`, file);
      for (const m of messages) {
        owner.set(`${scope}.${m.name}`, file);
        collect(file, `${scope}.${m.name}`, m.nestedType, m.enumType);
      }
    };
    for (const file of decoded) collect(file.name ?? '', file.package ? `.${file.package}` : '', file.messageType, file.enumType);
    let current: FileProto = {};
    // Protobuf scoping: look in the innermost scope first, then each enclosing one. A type from
    // another file makes that file a declared dependency, as reflection clients require.
    const resolve = (name: string | undefined, scope: string) => {
      if (!name) return name;
      let found: string | undefined = name.startsWith('.') ? name : undefined;
      for (let s = scope; !found; s = s.slice(0, Math.max(0, s.lastIndexOf('.')))) {
        if (owner.has(`${s}.${name}`)) found = `${s}.${name}`;
        if (s === '') break;
      }
      const file = found ? owner.get(found) : undefined;
      if (file && file !== current.name && !(current.dependency ?? []).includes(file)) current.dependency = [...(current.dependency ?? []), file];
      return found ?? name;
    };
    const qualify = (scope: string, messages: MessageProto[] = []) => {
      for (const m of messages) {
        const inner = `${scope}.${m.name}`;
        for (const field of m.field ?? []) field.typeName = resolve(field.typeName, inner);
        qualify(inner, m.nestedType);
      }
    };
    decoded.forEach((file, index) => {
      current = file;
      const scope = file.package ? `.${file.package}` : '';
      qualify(scope, file.messageType);
      for (const service of file.service ?? []) {
        for (const method of service.method ?? []) {
          method.inputType = resolve(method.inputType, scope);
          method.outputType = resolve(method.outputType, scope);
        }
      }
      files[index] = Buffer.from(descriptor.FileDescriptorProto.encode(file).finish());
    });
  }
  return definition;
}
