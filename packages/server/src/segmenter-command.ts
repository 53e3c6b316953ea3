/**
 * `plinth segmenter install | status`. The IS-Net weights come from an AGPL-3.0 npm package, so Plinth
 * never depends on it: this command installs it into the installation's node_modules on request
 * (without touching package.json), after saying so, then checks that the model really loads and runs.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Config } from './config.js';

const LICENCE_NOTE =
  'The IS-Net model comes from the npm package @imgly/background-removal-data, licensed AGPL-3.0 ' +
  '(not Plinth\'s Apache-2.0). It is installed next to Plinth, never added to its package.json.';

/** The directory whose node_modules holds Plinth's own dependencies: the package goes there too. */
function installRoot(): string {
  const ort = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
  return path.resolve(path.dirname(ort), '..', '..');
}

function npmInstall(cwd: string, pkg: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const child = spawn(npm, ['install', '--no-save', '--no-audit', '--no-fund', pkg], { cwd, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm install exited with ${code}`))));
  });
}

async function verify(config: Config): Promise<string> {
  const media = await import('@plinth/media');
  const described = media.describeSegmenter({ ...config.segmenter, kind: 'isnet' });
  if (described.name !== 'isnet') throw new Error('no IS-Net model found after the install');
  const segmenter = media.chooseSegmenter({ kind: 'isnet', modelPath: config.segmenter.modelPath });
  const scene = media.makeCutoutScene(media.CUTOUT_SCENES[0]);
  const started = performance.now();
  const result = await media.segmentRgb(scene.image, segmenter);
  const iou = media.maskIou(result.alpha, scene.truth);
  if (iou < 0.8) throw new Error(`the model loads but cuts out a test image badly (IoU ${iou.toFixed(2)})`);
  return `${described.model}: loaded and ran in ${((performance.now() - started) / 1000).toFixed(1)} s, test IoU ${iou.toFixed(3)}`;
}

export async function segmenterCommand(config: Config, args: string[]): Promise<void> {
  const [sub] = args;
  const media = await import('@plinth/media');
  if (sub === 'status' || sub === undefined) {
    const active = media.describeSegmenter(config.segmenter);
    process.stdout.write(`segmenter: ${active.name}${active.model ? ` (${active.model})` : ''}; PLINTH_SEGMENTER=${config.segmenter.kind}\n`);
    return;
  }
  if (sub !== 'install') throw new Error(`unknown segmenter command "${sub}" (install | status)`);
  process.stdout.write(`${LICENCE_NOTE}\n`);
  if (!media.modelPackageDir()) {
    const root = installRoot();
    process.stdout.write(`installing ${media.MODEL_PACKAGE} into ${path.join(root, 'node_modules')}\n`);
    await npmInstall(root, media.MODEL_PACKAGE);
  } else {
    process.stdout.write(`${media.MODEL_PACKAGE} is already installed\n`);
  }
  process.stdout.write(`${await verify(config)}\n`);
}
