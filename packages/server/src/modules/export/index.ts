/** What other modules may use of `export`; nothing else of the folder is theirs to touch. */
export { measureImageCompliance } from './export.compliance.js';
