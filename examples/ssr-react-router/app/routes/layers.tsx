import { Form, useLoaderData } from 'react-router'
import { apiFor, worldOf } from '../sandbox.server'

interface Layer {
  id: string
  name: string
}

/** Rendered on the server: the layers of the world the browser is in. */
export async function loader({ request }: { request: Request }) {
  const res = await apiFor(request)('/api/layers')
  if (!res.ok) throw new Response(await res.text(), { status: res.status })
  const body = (await res.json()) as { data: Layer[] }
  return { layers: body.data, world: worldOf(request) }
}

/** A form post, handled on the server: the delete goes to the same world. */
export async function action({ request }: { request: Request }) {
  const id = String((await request.formData()).get('id') ?? '')
  const res = await apiFor(request)(`/api/layers/${encodeURIComponent(id)}`, { method: 'DELETE' })
  if (!res.ok) throw new Response(await res.text(), { status: res.status })
  return null
}

export default function Layers() {
  const { layers, world } = useLoaderData<typeof loader>()
  return (
    <main>
      <h1>Layers</h1>
      <p>
        world <b data-testid="world">{world}</b>
      </p>
      <ul>
        {layers.map((layer) => (
          <li key={layer.id} data-id={layer.id}>
            {layer.name}
            <Form method="post">
              <input type="hidden" name="id" value={layer.id} />
              <button type="submit">Delete</button>
            </Form>
          </li>
        ))}
      </ul>
    </main>
  )
}
