import { rowSchemas } from '../store/world.js'

/**
 * A collection's records as a provider state names them: `notifications` is `a notification`,
 * `visitDetails` `a visit detail`. Names of states are the backend team's words, not ours.
 */
export const COLLECTIONS: readonly string[] = Object.keys(rowSchemas)

const singular = (name: string) => (/(Status|History)$/.test(name) ? name : name.replace(/ies$/, 'y').replace(/s$/, ''))
const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)

/** `a notification` for `notifications`. */
export const recordName = (collection: string) => {
  const w = words(singular(collection))
  return `${/^[aeiou]/.test(w) ? 'an' : 'a'} ${w}`
}

const byName = new Map(COLLECTIONS.map((c) => [recordName(c), c]))

/** The collection a state's record name stands for (`a notification` → `notifications`). */
export const collectionOf = (record: string): string | undefined => byName.get(record)
