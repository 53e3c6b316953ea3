// What other modules may use of uploads.
export { isUploadRef, readUploadRef, takeUploads, uploadRef, uploadStorageKeys } from './uploads.service.js';
export { sweepUploads, startUploadSweeper } from './uploads.cleanup.js';
