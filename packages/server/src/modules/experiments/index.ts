/** What other modules may use of experiments. */
export { runningExperimentFor } from './experiments.service.js';
export type { ExperimentRecord } from './experiments.types.js';
