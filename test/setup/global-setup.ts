import { startTestServices, type TestServices } from './test-services';

declare global {
  var weftTestServices: TestServices | undefined;
}

export default async function globalSetup(): Promise<void> {
  globalThis.weftTestServices = await startTestServices();
}
