// Swagger UI (npm `swagger-ui-dist`), the API explorer as it ships, set up
// the documented way (its swagger-initializer.js pointing at a spec) with a
// local OpenAPI spec of a few pet-store operations and a local server that
// implements them. A task expands an operation, turns on "Try it out",
// fills its parameters and presses "Execute"; the check is the request the
// API received.

/** The OpenAPI document: five operations of the classic pet store, served from /api. */
export const spec = {
  openapi: '3.0.3',
  info: { title: 'Pet store', version: '1.0.0', description: 'A few operations of the pet store, served by the corpus.' },
  servers: [{ url: '/api' }],
  paths: {
    '/pet/findByStatus': { get: {
      tags: ['pet'], summary: 'Finds pets by status', operationId: 'findPetsByStatus',
      parameters: [{ name: 'status', in: 'query', required: true, description: 'Status values to filter by', schema: { type: 'string', enum: ['available', 'pending', 'sold'], default: 'available' } }],
      responses: { 200: { description: 'the pets' } },
    } },
    '/pet/{petId}': {
      get: {
        tags: ['pet'], summary: 'Find pet by ID', operationId: 'getPetById',
        parameters: [{ name: 'petId', in: 'path', required: true, description: 'ID of the pet to return', schema: { type: 'integer', format: 'int64' } }],
        responses: { 200: { description: 'the pet' } },
      },
      delete: {
        tags: ['pet'], summary: 'Deletes a pet', operationId: 'deletePet',
        parameters: [{ name: 'petId', in: 'path', required: true, description: 'Pet id to delete', schema: { type: 'integer', format: 'int64' } }],
        responses: { 200: { description: 'deleted' } },
      },
    },
    '/store/inventory': { get: {
      tags: ['store'], summary: 'Returns pet inventories by status', operationId: 'getInventory',
      responses: { 200: { description: 'the inventory' } },
    } },
    '/user/login': { get: {
      tags: ['user'], summary: 'Logs user into the system', operationId: 'loginUser',
      parameters: [
        { name: 'username', in: 'query', required: true, description: 'The user name for login', schema: { type: 'string' } },
        { name: 'password', in: 'query', required: true, description: 'The password for login in clear text', schema: { type: 'string' } },
      ],
      responses: { 200: { description: 'logged in' } },
    } },
  },
};

const json = (v) => ({ type: 'application/json', body: JSON.stringify(v) });

/** The corpus server's routes: the initializer, the spec, the API. */
export function swaggerRoutes() {
  return {
    'GET /swagger-ui/swagger-initializer.js': () => ({ type: 'text/javascript', body: `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/swagger/openapi.json', dom_id: '#swagger-ui', deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: 'StandaloneLayout' });
};` }),
    'GET /swagger/openapi.json': () => json(spec),
    'GET /api/pet/findByStatus': (r) => json([{ id: 1, name: 'Rex', status: new URLSearchParams(r.query).get('status') }]),
    'GET /api/store/inventory': () => json({ available: 3, pending: 1, sold: 2 }),
    'GET /api/user/login': () => json('logged in user session: 1'),
    '* /api/pet/*': (r) => json(r.method === 'DELETE' ? { deleted: r.path.split('/').at(-1) } : { id: Number(r.path.split('/').at(-1)), name: 'Rex', status: 'available' }),
  };
}

const called = (method, pathname, query = {}) => ({ received }) => {
  const hit = received.find((r) => r.method === method && r.path === pathname && Object.entries(query).every(([k, v]) => new URLSearchParams(r.query).get(k) === v));
  const api = received.filter((r) => r.path.startsWith('/api/')).map((r) => `${r.method} ${r.path}${r.query.length ? `?${new URLSearchParams(r.query)}` : ''}`);
  return { ok: !!hit, detail: hit ? undefined : `the API received ${api.join(', ') || 'nothing'}` };
};

export function swaggerTasks() {
  const base = { app: 'swagger-ui', url: '/swagger-ui/index.html', ready: "document.querySelector('.opblock')", effect: 'region', failureClass: 'no tool where the task is (expand → fill → execute)' };
  return [
    { ...base, id: 'swagger-ui/get-pet', goal: 'In the API explorer, find the pet with ID 7', intent: { action: 'execute', object: 'Find pet by ID', fields: { petId: '7' } }, check: called('GET', '/api/pet/7') },
    { ...base, id: 'swagger-ui/find-by-status', goal: 'In the API explorer, find the pets whose status is sold', intent: { action: 'execute', object: 'Finds pets by status', fields: { status: 'sold' } }, check: called('GET', '/api/pet/findByStatus', { status: 'sold' }) },
    { ...base, id: 'swagger-ui/delete-pet', goal: 'In the API explorer, delete the pet with ID 3', intent: { action: 'execute', object: 'Deletes a pet', fields: { petId: '3' } }, check: called('DELETE', '/api/pet/3') },
    { ...base, id: 'swagger-ui/inventory', goal: 'In the API explorer, get the store\'s inventory', intent: { action: 'execute', object: 'Returns pet inventories by status' }, check: called('GET', '/api/store/inventory') },
    { ...base, id: 'swagger-ui/login', goal: 'In the API explorer, log in the user ada with the password correct-horse-42', intent: { action: 'execute', object: 'Logs user into the system', fields: { username: 'ada', password: 'correct-horse-42' } }, check: called('GET', '/api/user/login', { username: 'ada', password: 'correct-horse-42' }) },
  ];
}
