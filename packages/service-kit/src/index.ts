export type { ServiceModule } from './module';
export { serveService, type ServeOptions } from './serve';
