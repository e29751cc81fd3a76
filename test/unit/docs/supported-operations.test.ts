import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../src/util/clock';
import { supportedOperations } from '../../../src/pipeline/reconcile/router';
import { defaultProcessors } from '../../../processors/registry';
import { FOLLOW } from '../../helpers/processor-kit';
import { ScriptedClustersService } from '../../helpers/scripted-clusters-service';

/** docs/frontend-contract.md lists the operations this build handles: exactly the registry's. */
describe('the supported operations table', () => {
  it('lists every resource type and request the registry handles, and nothing else', () => {
    const doc = readFileSync(path.join(__dirname, '../../../docs/frontend-contract.md'), 'utf8');
    const section = doc.slice(doc.indexOf('The operations this build handles'));
    const rows = [...section.matchAll(/^\| `([^`]+)` \| ((?:`\w+`(?:, )?)+) \|$/gm)].flatMap(([, type, requests]) =>
      [...(requests ?? '').matchAll(/`(\w+)`/g)].map(([, request]) => `${type} ${request}`),
    );
    const registry = defaultProcessors({ cs: new ScriptedClustersService(), clock: new ManualClock(0), follow: FOLLOW });
    expect(rows.sort()).toEqual(supportedOperations(registry).sort());
  });
});
