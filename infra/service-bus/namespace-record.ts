import { NamespaceDef, settingsToProperties } from './config';
import { storedRule } from './rules';

/**
 * A namespace's entities in Config.json's shape: what the journal keeps once the administration API has
 * created, changed or deleted one, so that a restart reads it back with the same parser as the file.
 */
export function namespaceToConfig(ns: NamespaceDef): Record<string, unknown> {
  return {
    Name: ns.name,
    Queues: ns.queues.map((q) => ({ Name: q.name, Properties: settingsToProperties(q.settings) })),
    Topics: ns.topics.map((t) => ({
      Name: t.name,
      Properties: settingsToProperties(t.settings),
      Subscriptions: t.subscriptions.map((s) => ({
        Name: s.name,
        Properties: settingsToProperties(s.settings),
        Rules: s.rules.map(storedRule),
      })),
    })),
  };
}
