/** What other modules may use of `webhooks`; nothing else of the folder is theirs to touch. */
export { deleteFinishedDeliveriesBefore } from './webhooks.service.js';
