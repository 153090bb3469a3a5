import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Weft's version, as package.json states it. */
export const weftVersion: string = (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
