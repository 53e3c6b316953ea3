/** What other modules may use of `events`; nothing else of the folder is theirs to touch. */
export { EVENT_TYPES, OUTBOX_CHANNEL, emitEvent, type EventType } from './events.js';
