/** What the CLI uses of capture-mat: the `plinth capture-mat` command. */
export { captureMatCommand } from './capture-mat.command.js';
