// The media engine's one public entry: what the server may call. Nothing here knows HTTP, SQL, tenants or jobs.
export { MediaError, type MediaErrorReason, MEDIA_ERROR_REASONS } from './errors.js';
