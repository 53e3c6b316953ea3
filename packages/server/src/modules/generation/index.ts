/** What other modules may use of `generation`; nothing else of the folder is theirs to touch. */
export { generateModelJob, renderImagesJob } from './generation.job-defs.js';
