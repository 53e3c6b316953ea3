/** What other modules may use of `keys`; nothing else of the folder is theirs to touch. */
export { createKeyRecord, keyByHash, keyUsed, orgIdsOfKey } from './keys.service.js';
