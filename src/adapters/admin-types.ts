/** The admin interface's types (docs/control-api.md, "From code"): every entry that hands out an admin exports them. */
export type { Admin, Health, OverrideInfo, OverrideInput, ScenarioInfo, ScheduleEntry } from '../core/admin/client.js'
