/** What other modules may use of `auth`; nothing else of the folder is theirs to touch. */
export { Authenticator, findUserByEmail, membershipsOfUser } from './auth.service.js';
export { hashPassword, tokenHash } from './passwords.js';
