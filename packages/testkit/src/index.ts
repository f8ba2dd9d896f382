// The testkit (`@mailcast/testkit`): what tests import from it, named. A unit test that must not
// load the adapters imports one module instead (`@mailcast/testkit/timing`, docs/contributing.md).
export { createTestDatabase, cutOffDatabase, withAdmin, type TestDatabase } from './database';
export { Fixtures } from './fixtures';
export { memoryLogger } from './logger';
export { PERSON_USER_AGENT } from './agents';
export { answeringAfter, eventually, freePort } from './net';
export { HOSTILE_LIQUID } from './hostile-liquid';
export { findPlaintext } from './plaintext-scan';
export { dispatcherProcesses, REPO_ROOT, spawnBuilt, spawnDispatcher, stopAll, type DispatcherProcesses, type Spawned } from './process';
export { anEmailServer, throwawaySecretBox } from './secrets';
export { suiteResource } from './suite';
export { busiestWindow } from './timing';
export { testClock } from './clock';
export { RecordingSystemMail } from './system-mail';
export { signInAtProvider, startOidcProvider, type OidcAccount, type TestOidcProvider } from './oidc';
