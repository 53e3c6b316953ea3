/** What other modules may use of `assets`; nothing else of the folder is theirs to touch. */
export { ImageSettingsSchema, PresetSchema, mergeSettings, settingsProblem, type ImageSettingsInput } from './settings.schemas.js';
export { ArCallToActionSchema, HotspotSchema } from './viewer-features.schemas.js';
