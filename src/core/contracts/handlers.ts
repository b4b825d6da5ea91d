/** Everything the contract routes run, in one chunk loaded on first use (the browser entry's budget). */
export { buildPact } from './pact.js'
export { usedOpenapi } from './used-openapi.js'
export { changeState, stateList } from './states.js'
