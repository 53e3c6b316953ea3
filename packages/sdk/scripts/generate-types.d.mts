/** Types of generate-types.mjs, for the tests that import it. */
export function renderTypes(document: unknown): string;
export function servedDocument(): Promise<unknown>;
