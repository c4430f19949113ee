import { warmupSuite } from './seed-warmup.suite';

warmupSuite('seed and neighbours while the tenant graph warms up (PGlite)', () => ({}));
