/** What other modules may use of `retention`; nothing else of the folder is theirs to touch. */
export { startRetention } from './retention.service.js';
