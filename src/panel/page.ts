// The bundle's entry: one global the sandbox's page (`mount`) and the browser runtime (`install`, the in-page panel) call.
import { installPanel } from './host.js'
import { mountPanel } from './index.js'

;(globalThis as { fleetSandboxPanel?: object }).fleetSandboxPanel = { mount: mountPanel, install: installPanel }
