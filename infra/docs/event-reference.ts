import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { EventType, shannonEventAliases, shannonOnlyEventTypes } from '../../core/events/event-types';
import { cell, code, generatedPage, table } from './markdown';

// docs/reference/events.md from the event catalog (core/events/event-types.ts): each type a task's
// stream carries, with the doc comment written beside it, and the Shannon names a filter accepts.

const catalogFile = path.resolve(__dirname, '..', '..', 'core', 'events', 'event-types.ts');

/** Each EventType member's doc comment, read from the catalog's source. */
function docCommentsByMember(): Map<string, string> {
  const source = ts.createSourceFile(catalogFile, readFileSync(catalogFile, 'utf8'), ts.ScriptTarget.Latest, true);
  const comments = new Map<string, string>();
  source.forEachChild(function visit(node): void {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
      const text = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ');
      if (text) comments.set(node.name.text, text);
    }
    node.forEachChild(visit);
  });
  return comments;
}

export function eventReference(): string {
  const comments = docCommentsByMember();
  const rows = Object.entries(EventType).map(([member, type]) => [code(type), cell(comments.get(member) ?? '')]);
  const aliases = Object.entries(shannonEventAliases).map(([shannon, weft]) => [code(shannon), code(weft)]);
  return generatedPage(
    'Event types',
    'the event catalog in core/events/event-types.ts',
    [
      "A task's events are its durable log: each one is stored in the same transaction as the record it describes, numbered",
      'without gaps per workflow, and served by `StreamTaskExecution`, the SSE and WebSocket streams and `weft watch`',
      '(see [Streaming and resume](../concepts/streaming-and-resume.md)). A stream may be filtered by type (`types`).',
    ],
    [
      '## Types Weft emits',
      '',
      table(['Type', 'Notes'], rows),
      '',
      "## Shannon's names",
      '',
      "A filter may use Shannon's names for these types:",
      '',
      table(["Shannon's name", "Weft's type"], aliases),
      '',
      "Shannon's types that Weft never emits are accepted in a filter and match nothing:",
      shannonOnlyEventTypes.map(code).join(', ') + '.',
      'Any other unknown type is refused (INVALID_ARGUMENT, or 400 over REST).',
    ],
  );
}
