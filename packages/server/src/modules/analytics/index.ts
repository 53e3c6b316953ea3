/** What other modules may use of analytics. */
export { armOutcomes, forgetExposures } from './usage.service.js';
export { ARMS, type Arm, type ArmOutcome } from './analytics.types.js';
export { BeaconIntake, deleteBeaconEventsBefore } from './beacon.service.js';
