// The bundle's entry: one global the sandbox's page and the browser runtime both call.
import { mountPanel } from './index.js'

;(globalThis as { fleetSandboxPanel?: { mount: typeof mountPanel } }).fleetSandboxPanel = { mount: mountPanel }
