import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Patches } from '../../workflows/patches';
import { frozenBundleOf, recordedBy } from './frozen-builds';

// The patch registry (workflows/patches.ts) against what it describes: every patch's new path is in
// a golden history (so its replay is tested), every marker a golden history holds is a registered
// patch (so none is lost track of), each names the frozen build its histories replay on, and no
// workflow code calls patched() any more: a change ships as a new build.

const historiesDir = path.join(__dirname, '../histories');
const workflowsDir = path.join(__dirname, '../../workflows');
const goldenFiles = readdirSync(historiesDir).filter((file) => file.endsWith('.json') && file !== 'manifest.json');
const registered = Object.values(Patches);

/** The patch ids whose markers a history records. */
function markersOf(file: string): string[] {
  const history = historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')));
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const details = Object.values(marker.details ?? {})[0];
    return [defaultPayloadConverter.fromPayload<{ id: string }>(details!.payloads![0]!).id];
  });
}

const markers = new Map(goldenFiles.map((file) => [file, markersOf(file)]));

it.each(registered.map((patch) => [patch.id, patch]))('has a golden history that takes the new path of %s', (id) => {
  expect([...markers.values()].some((ids) => ids.includes(id))).toBe(true);
});

it('registers every patch marker the golden histories hold, with what it does, when it came and when it goes', () => {
  const ids = new Set(registered.map((patch) => patch.id));
  const unknown = [...markers].flatMap(([file, found]) => found.filter((id) => !ids.has(id)).map((id) => `${file}: ${id}`));
  expect(unknown).toEqual([]);
  expect(ids.size).toBe(registered.length);
  for (const patch of registered) {
    expect(patch.newPath.length).toBeGreaterThan(20);
    expect(patch.added).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(patch.deprecateWhen).not.toBe('');
    if (patch.impliedBy) expect(ids.has(patch.impliedBy)).toBe(true);
    expect(existsSync(frozenBundleOf(patch.lastPatchedIn))).toBe(true);
  }
});

it('has every history that holds a patch marker replay on a frozen build, the current code taking the new paths without one', () => {
  const marked = [...markers].filter(([, found]) => found.length > 0).map(([file]) => file);
  expect(marked.filter((file) => !recordedBy[file])).toEqual([]);
});

it('lets no workflow code call patched() or deprecatePatch()', () => {
  const callers = readdirSync(workflowsDir)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => /\b(patched|deprecatePatch)\(/.test(readFileSync(path.join(workflowsDir, file), 'utf8')));
  expect(callers).toEqual([]);
});
