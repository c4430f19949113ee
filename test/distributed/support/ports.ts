export { freePort } from '../../e2e/support/ports';
