#!/usr/bin/env node
// chdb lists one optional native package per platform, but only the linux-x64 one is served by the registry
// these machines reach. npm then leaves the others out of package-lock.json and `npm ci` refuses the lock as
// "out of sync". This writes lock entries for the missing platforms, marked optional with their os/cpu, so npm
// skips them on Linux x64 without fetching anything. Run after any `npm install` that rewrites the lock
// (`make lock` does both).
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const PLATFORM = /^@chdb\/lib-(darwin|linux)-(arm64|x64)(-gnu)?$/;

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    const match = PLATFORM.exec(name);
    const key = `node_modules/${name}`;
    if (match === null || lock.packages[key] !== undefined) continue;
    lock.packages[key] = { version: entry.optionalDependencies[name], optional: true, os: [match[1]], cpu: [match[2]] };
    added += 1;
    console.log(`lock: stub for ${name} (optional dependency of ${path}, not on this registry)`);
  }
}
if (added > 0) writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
