import { agentMutationSuite, mutationSuite } from './mutate.js';
import { agentSources, skillSources } from './sources.js';

mutationSuite('mutations of the bundled skills and the fixtures', skillSources, { count: 300, seed: 1 });

agentMutationSuite('mutations of the agent fixtures and the bundled agents', agentSources, {
  count: 300,
  seed: 7,
});
