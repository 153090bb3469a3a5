import { isUtf8 } from 'node:buffer';
import * as protobufjs from 'protobufjs';

// protobufjs decodes more than the protobuf wire format allows: a string field sent with another
// wire type is read as a string anyway, and a string whose bytes are not UTF-8 (which proto3
// forbids) comes out with U+FFFD in place of the bad bytes, to be kept as if the caller had sent
// them. Parsers such as protoc's and Go's refuse both. This reads a request's bytes as strictly,
// guided by its descriptor, and says what is wrong with them.

const lengthDelimited = 2;

/** Field types whose values are length-delimited on the wire, whatever else a sender tries. */
const isLengthDelimited = (slot: Slot) =>
  slot.keyType !== undefined || slot.type === 'string' || slot.type === 'bytes' || slot.resolvedType instanceof protobufjs.Type;

/** What a field number holds: a message's field, or a map entry's key or value. */
interface Slot {
  name: string;
  type: string;
  resolvedType: protobufjs.ReflectionObject | null;
  /** A map field's key type. */
  keyType?: string;
}

/** The first problem in one message's bytes; `slotOf` names what each field number holds. */
function problemIn(bytes: Uint8Array, slotOf: (id: number) => Slot | undefined, at: string): string | undefined {
  const reader = protobufjs.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const slot = slotOf(tag >>> 3);
    const wireType = tag & 7;
    if (!slot || (!isLengthDelimited(slot) && wireType !== lengthDelimited)) {
      reader.skipType(wireType);
      continue;
    }
    const where = `${at}.${slot.name}`;
    if (wireType !== lengthDelimited) return `${where} has wire type ${wireType}, not a length-delimited value`;
    const value = reader.bytes();
    const found = problemInValue(slot, value, where);
    if (found) return found;
  }
  return undefined;
}

function problemInValue(slot: Slot, value: Uint8Array, where: string): string | undefined {
  if (slot.keyType !== undefined) {
    const entry = [
      { name: '(key)', type: slot.keyType, resolvedType: null },
      { name: '(value)', type: slot.type, resolvedType: slot.resolvedType },
    ];
    return problemIn(value, (id) => entry[id - 1], where);
  }
  if (slot.type === 'string') return isUtf8(value) ? undefined : `${where} is not valid UTF-8`;
  const type = slot.resolvedType;
  return type instanceof protobufjs.Type ? problemIn(value, (id) => type.fieldsById[id], where) : undefined;
}

/** What makes `bytes` not a well-formed message of `type` (read strictly), or undefined when they are one. */
export function wireProblemOf(type: protobufjs.Type, bytes: Uint8Array): string | undefined {
  try {
    return problemIn(bytes, (id) => type.fieldsById[id], 'request');
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
