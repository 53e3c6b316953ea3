import { execFile } from 'node:child_process';
import { MediaError } from '@plinth/media';
import type { ToolPaths } from '../config.js';

/** The system tools jobs shell out to, as `GET /v1/health` names them under `capabilities`. */
export const TOOL_NAMES = ['ffmpeg', 'chromium', 'colmap'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface Capability {
  available: boolean;
  version: string | null;
}

/** The environment variable that points at each tool: the one thing a user missing it should read. */
export const TOOL_ENV: Record<ToolName, string> = {
  ffmpeg: 'PLINTH_FFMPEG_PATH',
  chromium: 'PLINTH_CHROMIUM_PATH',
  colmap: 'PLINTH_COLMAP_PATH',
};

/** Each tool prints its version differently; colmap has no --version and answers `help` instead. */
const VERSION_ARGS: Record<ToolName, string[]> = { ffmpeg: ['-version'], chromium: ['--version'], colmap: ['help'] };
const VERSION_PATTERN: Record<ToolName, RegExp> = {
  ffmpeg: /ffmpeg version (\S+)/i,
  chromium: /(?:chromium|chrome)\s+([\d.]+)/i,
  colmap: /COLMAP\s+([\d.]+)/,
};

const PROBE_TIMEOUT_MS = 10_000;
/** A tool installed while the server runs is found within a minute; a health poll never spawns more. */
const CACHE_MS = 60_000;
const cache = new Map<string, { at: number; result: Promise<Capability> }>();

function probe(name: ToolName, path: string, env: ToolPaths['env']): Promise<Capability> {
  return new Promise((resolve) => {
    execFile(
      path,
      VERSION_ARGS[name],
      { timeout: PROBE_TIMEOUT_MS, maxBuffer: 1024 * 1024, env },
      (err, stdout, stderr) => {
        const text = `${stdout}\n${stderr}`;
        const version = VERSION_PATTERN[name].exec(text)?.[1] ?? null;
        // colmap exits non-zero on `help` in some builds; a recognised banner is proof enough.
        resolve(version || !err ? { available: true, version } : { available: false, version: null });
      },
    );
  });
}

export function toolCapability(paths: ToolPaths, name: ToolName): Promise<Capability> {
  const path = paths[name];
  const key = `${name}\0${path}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.result;
  const result = probe(name, path, paths.env);
  cache.set(key, { at: Date.now(), result });
  return result;
}

export async function toolCapabilities(paths: ToolPaths): Promise<Record<ToolName, Capability>> {
  const found = await Promise.all(TOOL_NAMES.map((name) => toolCapability(paths, name)));
  return Object.fromEntries(TOOL_NAMES.map((name, i) => [name, found[i]])) as Record<ToolName, Capability>;
}

/**
 * Called by a job before it needs a tool: a missing tool fails the job with `tool_missing` naming the tool
 * and the variable to set, instead of an anonymous internal error deep inside a spawn.
 */
export async function requireTool(paths: ToolPaths, name: ToolName): Promise<string> {
  if ((await toolCapability(paths, name)).available) return paths[name];
  throw new MediaError('tool_missing', `${name} is not installed on this server: install it, or point ${TOOL_ENV[name]} at it.`, {
    tool: name,
    env: TOOL_ENV[name],
  });
}

/** Forget cached probes: for tests that change what is installed. */
export function clearToolCache(): void {
  cache.clear();
}
