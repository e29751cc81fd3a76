import { Counters } from './counters';
import { Faults } from './faults';
import { ResourceTokens } from './resource-tokens';
import { AccountInfo } from './resources';
import { Store } from './store';

/** What every handler may use. */
export interface EmulatorContext {
  store: Store;
  account: AccountInfo;
  counters: Counters;
  faults: Faults;
  partitions: number;
  /** Mints and checks the tokens permissions hand out. */
  resourceTokens: ResourceTokens;
}
