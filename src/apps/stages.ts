import type { Stage } from '../core/route/exchange.js'
import { door } from '../core/app/door-stage.js'
import { input } from '../core/app/input-stage.js'
import { route } from '../core/app/route-stage.js'
import { auth } from '../core/auth/stage.js'
import { writableAnswer } from '../core/http/writable-stage.js'
import { anonymousOverrides, signedInOverrides } from '../core/overrides/stage.js'
import { journal } from '../core/sandbox/journal-stage.js'
import { conduct } from '../core/conduct/stage.js'
import { afterScenarios, beforeScenarios, edgeScenarios, scenariosInForce } from '../core/scenarios/stage.js'
import { repro } from '../core/time-travel/repro-stage.js'

/**
 * The request pipeline, in order (docs/architecture.md, "The stages"): each stage is exported
 * by its feature's folder, and a new concern is one line here. The stages up to `route` answer
 * (the first answer ends them); the tail after it runs for every answer.
 */
export const stages: readonly Stage[] = [
  door, // the control API's origin rule, the request's sandbox, 404 and 405
  scenariosInForce, // the sandbox's scenarios and the header's
  anonymousOverrides, // a world's own answers that need no caller
  edgeScenarios, // gateways before auth: rate limits, outages
  auth, // the route's rule, the caller's principal
  signedInOverrides, // a world's own answers for a signed-in caller
  input, // path params, query and body checked (400)
  beforeScenarios, // scenarios that answer after auth and the checks
  route, // the handler; a write alone, at one instant
  afterScenarios, // tail: scenarios that reshape the answer
  writableAnswer, // tail: an answer HTTP and JSON can carry, else 500
  repro, // tail: the repro log's step
  conduct, // tail: the app's conduct judged, the rules broken marked on the entry
  journal, // tail: the Response, its log line and journal entry
]
