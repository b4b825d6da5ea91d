import * as z from 'zod'
import { integer } from './schemas.js'

/** `?page=&limit=` (page >= 1, limit 1..50, default 20), as the spec's notification list. */
export const pageQuery = z.object({ page: integer(1).default(1), limit: integer(1, 50).default(20) })

export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})
export type Pagination = z.infer<typeof paginationSchema>

export const pageInfo = (page: number, limit: number, total: number): Pagination => ({
  page,
  limit,
  total,
  totalPages: Math.ceil(total / limit),
})

/** One page of `rows`, as paginated lists answer it: `{items, pagination}`. */
export function paginate<T>(rows: T[], page: number, limit: number): { items: T[]; pagination: Pagination } {
  return { items: rows.slice((page - 1) * limit, page * limit), pagination: pageInfo(page, limit, rows.length) }
}
