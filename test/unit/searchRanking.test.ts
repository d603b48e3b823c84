// search_docs' ranking on documents it was never tuned for: what it learns
// from the document, how it reads a request, and its saved state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { OperationSearch } from '../../main/core/search/operationSearch.ts';
import { readQuery } from '../../main/core/search/queryParsing.ts';
import { tempDir } from '../helpers/paths.ts';
import { okJson } from '../helpers/openApiShapes.ts';

type Op = Record<string, unknown>;
const op = (operationId: string, summary: string | undefined, extra: Op = {}): Op => ({
  operationId,
  ...(summary ? { summary } : {}),
  responses: { 200: { description: 'ok' } },
  ...extra,
});

function catalogueOf(paths: Record<string, Record<string, Op>>, extra: Op = {}): Catalogue {
  return buildCatalogue({ openapi: '3.1.0', info: { title: 'Test', version: '1' }, paths, ...extra });
}

const first = (s: OperationSearch, q: string) => s.search(q, 5)[0]?.op.id;
/** The parts of one operation's score for a request. */
const partsOf = (s: OperationSearch, q: string, id: string) => s.rank(q).find((h) => h.op.id === id)!.parts;

test("a word only the document's descriptions use finds the operations its names call otherwise", () => {
  const cat = catalogueOf({
    '/orders/{id}/cancel': { post: op('orders.cancel', 'Cancel an order', { description: 'Cancels an order that has not been paid.' }) },
    '/orders': { get: op('orders.list', 'List orders') },
    '/shipments': {
      get: op('shipments.list', 'List shipments', { description: 'Lists every parcel you have sent.' }),
      post: op('shipments.create', 'Create a shipment', { description: 'Books a courier for a parcel.' }),
    },
    '/shipments/{id}/cancel': { post: op('shipments.cancel', 'Cancel a shipment', { description: 'Stops it before it leaves the warehouse.' }) },
  });
  const s = new OperationSearch(cat);
  assert.deepEqual(s.learnedVocabulary().parcel, ['shipment']);
  // "parcel" is nowhere in shipments.cancel: only what the document taught says it is a shipment.
  assert.equal(first(s, 'cancel a parcel'), 'shipments.cancel');
});

test("a tag's description teaches the API's product names (a Droplet is a virtual machine)", () => {
  const doc = {
    tags: [
      { name: 'Droplets', description: 'A Droplet is a DigitalOcean virtual machine with its own disk and address.' },
      { name: 'Volumes', description: 'Block storage you can attach to a Droplet.' },
    ],
  };
  const cat = catalogueOf(
    {
      '/droplets': {
        post: op('droplets.create', 'Create a new Droplet', { tags: ['Droplets'] }),
        get: op('droplets.list', 'List all Droplets', { tags: ['Droplets'] }),
      },
      '/volumes': {
        post: op('volumes.create', 'Create a new volume', { tags: ['Volumes'] }),
        get: op('volumes.list', 'List all volumes', { tags: ['Volumes'] }),
      },
    },
    doc,
  );
  assert.equal(first(new OperationSearch(cat, { tags: doc.tags }), 'create a virtual machine'), 'droplets.create');
});

test('an operation without a summary is found by the first sentence of its description', () => {
  const cat = catalogueOf({
    '/conversations.list': { get: op('conversations_list', undefined, { description: 'Lists all channels in a workspace. Paginated.' }) },
    '/conversations.members': { get: op('conversations_members', undefined, { description: 'Retrieve members of a conversation.' }) },
    '/conversations.info': { get: op('conversations_info', undefined, { description: 'Retrieve information about a conversation.' }) },
    '/users.list': { get: op('users_list', undefined, { description: 'Lists all users in a workspace.' }) },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'list all channels'), 'conversations_list');
  assert.equal(first(s, 'who is in this conversation'), 'conversations_members');
});

test('a huge enum does not outrank the operation that does the job', () => {
  // Every event type of the API, as webhook endpoints take them: "invoice" is one value among many.
  const resources = ['account', 'balance', 'charge', 'checkout', 'coupon', 'customer', 'dispute', 'file', 'payout', 'plan', 'price', 'product'];
  const eventTypes = [...resources.flatMap((r) => [`${r}.created`, `${r}.updated`, `${r}.deleted`]), 'invoice.paid', 'invoice.voided'];
  const cat = catalogueOf({
    '/webhook_endpoints': {
      post: op('webhooks.create', 'Create a webhook endpoint', {
        parameters: [{ name: 'enabled_events', in: 'query', schema: { type: 'array', items: { type: 'string', enum: eventTypes } } }],
      }),
    },
    '/billing/documents': { get: op('documents.list', 'List billing documents', { description: 'Bills, credit notes and receipts: every invoice sent.' }) },
    '/customers': { get: op('customers.list', 'List customers') },
  });
  const s = new OperationSearch(cat);
  const hits = s.search('paid invoices', 5);
  assert.equal(hits[0]?.op.id, 'documents.list');
  const webhook = hits.find((h) => h.op.id === 'webhooks.create');
  assert.ok(!webhook || webhook.score < hits[0]!.score / 4, `the enum's operation scores ${webhook?.score} beside ${hits[0]!.score}`);
});

test('plural and singular, camelCase, snake_case, kebab-case and path segments all match', () => {
  const cat = catalogueOf({
    '/user-groups': { get: op('list_user_groups', 'List groups'), post: op('createUserGroup', 'Create a group') },
    '/user-groups/{groupId}': { get: op('get-user-group', 'Get a group'), delete: op('deleteUserGroup', 'Delete a group') },
    '/users': { get: op('listUsers', 'List users') },
    '/groups-of-servers': { get: op('serverPools', 'List pools') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'list user groups'), 'list_user_groups');
  assert.equal(first(s, 'list user_groups'), 'list_user_groups');
  assert.equal(first(s, 'create a userGroup'), 'createUserGroup');
  assert.equal(first(s, 'get one user-group'), 'get-user-group');
  assert.equal(first(s, 'delete user groups'), 'deleteUserGroup');
  assert.equal(first(s, 'groups of servers'), 'serverPools');
});

test('"who am I" and "my …" find the operations on the caller\'s own account', () => {
  const cat = catalogueOf({
    '/users': { get: op('users.list', 'List users') },
    '/users/{userId}': {
      get: op('users.get', 'Get a user', {
        parameters: [
          { name: 'userId', in: 'path', required: true, description: "A user's id, or 'me' for the authenticated user.", schema: { type: 'string' } },
        ],
      }),
    },
    '/boards/{boardId}': { get: op('boards.get', 'Get a board') },
    '/boards': { get: op('boards.list', 'List boards') },
    '/members/{memberId}/boards': {
      get: op('members.boards.list', 'List the boards of a member', {
        parameters: [{ name: 'memberId', in: 'path', required: true, description: "A member id, or 'me'.", schema: { type: 'string' } }],
      }),
    },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'who am I logged in as?'), 'users.get');
  assert.equal(first(s, 'list all my boards'), 'members.boards.list');
  assert.equal(first(s, 'list all boards'), 'boards.list');
});

test('the verb asked for is understood in everyday words (copy, erase, kick out, assign, fork)', () => {
  const cat = catalogueOf({
    '/projects/{id}': { get: op('getProject', 'Get a project'), put: op('updateProject', 'Update a project'), delete: op('deleteProject', 'Delete a project') },
    '/projects/{id}/duplicate': { post: op('duplicateProject', 'Duplicate a project') },
    '/projects/{id}/removeTag': { post: op('removeTagForProject', 'Remove a tag from a project') },
    '/workspaces/{id}/users': { get: op('getUsersForWorkspace', 'Get users in a workspace') },
    '/workspaces/{id}/removeUser': { post: op('removeUserForWorkspace', 'Remove a user from a workspace') },
    '/workspaces/{id}/addUser': { post: op('addUserForWorkspace', 'Add a user to a workspace') },
    '/repos/{repo}/forks': { post: op('createFork', 'Create a fork'), get: op('listForks', 'List forks') },
    '/repos/{repo}/fork-settings': { put: op('setForkSettings', 'Set fork settings') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'copy a project'), 'duplicateProject');
  assert.equal(first(s, 'erase a project'), 'deleteProject');
  assert.equal(first(s, 'kick a user out of the workspace'), 'removeUserForWorkspace');
  assert.equal(first(s, 'assign the project to Sarah'), 'updateProject');
  assert.equal(first(s, 'fork a repository'), 'createFork');
});

test('the thing a request is about decides between a resource and its parent ("cards on a board" is not "the board of a card")', () => {
  const cat = catalogueOf({
    '/boards/{idBoard}/cards': { get: op('getBoardsCardsByIdBoard', 'getBoardsCardsByIdBoard()') },
    '/cards/{idCard}/board': { get: op('getCardsBoardByIdCard', 'getCardsBoardByIdCard()') },
    '/boards/{idBoard}/lists': { get: op('getBoardsListsByIdBoard', 'getBoardsListsByIdBoard()') },
    '/lists/{idList}/board': { get: op('getListsBoardByIdList', 'getListsBoardByIdList()') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'what cards are on this board?'), 'getBoardsCardsByIdBoard');
  assert.equal(first(s, 'the board of a card'), 'getCardsBoardByIdCard');
  assert.equal(first(s, 'get the lists on a board'), 'getBoardsListsByIdBoard');
});

test('a question that names no action reads ("who is on this team?" lists its members, it does not add one)', () => {
  const cat = catalogueOf({
    '/teams/{team}/members': { post: op('teams.members.add', 'Team members'), get: op('teams.members.list', 'Team members list') },
  });
  assert.equal(first(new OperationSearch(cat), 'who is on this team?'), 'teams.members.list');
});

test('the thing a request places its object in picks the list nested under it ("tasks in a project" → /projects/{id}/tasks)', () => {
  const cat = catalogueOf({
    '/tasks': { get: op('tasks.list', 'List tasks in a project') },
    '/projects/{p}/tasks': { get: op('projects.tasks', 'List tasks') },
  });
  assert.equal(first(new OperationSearch(cat), 'list the tasks in a project'), 'projects.tasks');
});

test('a path segment the request does not mention makes way for the plainer path ("which regions" → /regions, not /apps/regions)', () => {
  const cat = catalogueOf({
    '/apps/regions': { get: op('apps.regions', 'List regions', { description: 'Regions apps can be deployed to.' }) },
    '/regions': { get: op('regions', 'List regions') },
  });
  assert.equal(first(new OperationSearch(cat), 'which regions are there'), 'regions');
});

test('a GET on a plural collection lists, whatever its summary calls it ("Get the customer\'s subscriptions")', () => {
  const cat = catalogueOf({
    '/customers/{customer}/subscription': { get: op('customers.subscription', "Get the customer's current subscription") },
    '/customers/{customer}/subscriptions': { get: op('customers.subscriptions', "Get the customer's subscriptions") },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'list all subscriptions for a customer'), 'customers.subscriptions');
  // It counts as the list asked for, not as a read of one.
  assert.ok(s.rank('list all subscriptions for a customer').find((h) => h.op.id === 'customers.subscriptions')!.parts.action! > 0);
});

test('a request opening with a verb that names no action writes ("bookmark this song" saves it, it does not list the saved ones)', () => {
  const cat = catalogueOf({
    '/me/tracks': {
      get: op('tracks.saved', "Get the user's saved tracks"),
      put: op('tracks.save', 'Save tracks for the current user'),
      delete: op('tracks.unsave', "Remove the user's saved tracks"),
    },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'bookmark this song'), 'tracks.save');
  const action = (id: string) => s.rank('bookmark this song').find((h) => h.op.id === id)!.parts.action!;
  assert.ok(action('tracks.save') > 0 && action('tracks.saved') < 0, 'a write gains, a read loses');
  // A command seldom deletes unless its verb says so: a deletion loses like a read.
  assert.ok(action('tracks.unsave') < 0);
  // A verb of reading does not write: "check my saved tracks" reads them.
  assert.equal(first(s, 'check my saved tracks'), 'tracks.saved');
});

test('an operation that takes the request\'s verb as a value does it ("resize a droplet": POST /droplets/{id}/actions { type: "resize" })', () => {
  const body = (values: string[]) => ({
    requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { type: { type: 'string', enum: values } } } } } },
  });
  const cat = catalogueOf({
    '/droplets/{id}': { get: op('droplets.get', 'Get a droplet'), delete: op('droplets.delete', 'Delete a droplet') },
    '/droplets/{id}/actions': { post: op('droplets.actions', 'Initiate a droplet action', body(['reboot', 'resize', 'snapshot', 'power_off'])) },
    '/databases/{id}/resize': { put: op('databases.resize', 'Resize a database cluster') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'resize a droplet'), 'droplets.actions');
  assert.equal(first(s, 'reboot my droplet'), 'droplets.actions');
  // A value it takes is no verb of the request: reading one is still a GET.
  assert.equal(first(s, 'get a droplet'), 'droplets.get');
});

test('a request opening with a thing is no command, and a word inside a longer value is not one the operation takes ("commits in a repository")', () => {
  const body = (values: string[]) => ({
    requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { title: { type: 'string', enum: values } } } } } },
  });
  const cat = catalogueOf({
    '/repos/{owner}/{repo}/commits': { get: op('repos.listCommits', 'List commits') },
    '/repos/{owner}/{repo}/git/commits': { post: op('git.createCommit', 'Create a commit') },
    '/repos/{owner}/{repo}': { patch: op('repos.update', 'Update a repository', body(['COMMIT_MESSAGES', 'MERGE_MESSAGE', 'PR_TITLE'])) },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'commits in a repository'), 'repos.listCommits');
  const parts = (q: string, id: string) => partsOf(s, q, id);
  // COMMIT_MESSAGES holds "commit", but the operation does not take the verb: no verb credit, and the commit is made first.
  assert.equal(parts('commit to a repository', 'repos.update').verb, 0);
  assert.equal(first(s, 'commit to a repository'), 'git.createCommit');
});

test('an operation on a thing the request does not name loses a little ("list workspaces" is not about their projects)', () => {
  const cat = catalogueOf({
    '/workspaces': { get: op('workspaces.list', 'Get multiple workspaces') },
    '/workspaces/{w}/projects': { get: op('workspaces.projects', 'Get projects in a workspace') },
  });
  const ranked = new OperationSearch(cat).rank('list workspaces');
  assert.equal(ranked.find((h) => h.op.id === 'workspaces.list')!.parts.object, 0);
  assert.ok(ranked.find((h) => h.op.id === 'workspaces.projects')!.parts.object! < 0);
});

test('a request naming fields of what an operation returns finds it ("tempo and danceability of a track" → audio features)', () => {
  const returns = (properties: Record<string, unknown>) => ({ responses: okJson({ type: 'object', properties }) });
  const number = { type: 'number' };
  const cat = catalogueOf({
    '/tracks/{id}': { get: op('tracks.get', 'Get a track', returns({ name: { type: 'string' }, duration_ms: number })) },
    '/audio-features/{id}': {
      get: op('features.get', "Get a track's audio features", returns({ tempo: number, danceability: number, energy: number })),
    },
    // Behind a wrapper (`{ data: [...] }`) too.
    '/invoices': {
      get: op('invoices.list', 'List invoices', returns({ data: { type: 'array', items: { type: 'object', properties: { amount_due: number } } } })),
    },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'tempo and danceability'), 'features.get');
  assert.ok(
    s
      .search('tempo and danceability of a track', 2)
      .map((h) => h.op.id)
      .includes('features.get'),
  );
  assert.equal(first(s, 'amount due'), 'invoices.list');
  // What an operation is named after still comes first.
  assert.equal(first(s, 'get a track'), 'tracks.get');
});

test('a restored index answers exactly like a fresh one, and restoring indexes nothing again (GitHub)', async () => {
  const { dir, cleanup } = tempDir();
  const loaded = await loadApiDocument('node_modules/@octokit/openapi/generated/api.github.com.json', { cacheDir: dir });
  cleanup();
  const cat = buildCatalogue(loaded.document, loaded.refNames);
  // Which operations a step reads: building reads every one; restoring must read none (what it needs is in the state).
  const touched = new Set<number>();
  const watched = {
    ...cat,
    operations: cat.operations.map((o, i) => new Proxy(o, { get: (t, k, r) => (touched.add(i), Reflect.get(t, k, r)) })),
  };
  const fresh = new OperationSearch(watched, { tags: loaded.document.tags });
  assert.equal(touched.size, cat.operations.length, 'building reads every operation');
  const text = JSON.stringify(fresh.toJSON());
  touched.clear();
  const restored = OperationSearch.restore(watched, JSON.parse(text));
  assert.equal(touched.size, 0, 'restoring read no operation: nothing was indexed again');
  assert.notEqual(restored, fresh);
  assert.deepEqual(restored.learnedVocabulary(), fresh.learnedVocabulary());
  for (const q of ['list issues for a repository', 'star a repository', 'who am I', 'creat a pull reqest', 'delete a branch protection rule']) {
    const a = fresh.search(q, 8).map((h) => [h.op.id, h.score]);
    const b = restored.search(q, 8).map((h) => [h.op.id, h.score]);
    assert.deepEqual(b, a, q);
  }
  assert.deepEqual(restored.corrected('creat a pull reqest'), fresh.corrected('creat a pull reqest'));
  assert.throws(() => OperationSearch.restore(catalogueOf({ '/x': { get: op('x', 'X') } }), JSON.parse(text)), /does not fit/);
});

test('a request that asks who is after people: users, attendees, watchers; "who am I" is after the caller', () => {
  const cat = catalogueOf({
    '/meetings/{id}': { get: op('getMeeting', 'Get a meeting'), patch: op('updateMeeting', 'Update a meeting') },
    '/meetings/{id}/recordings': { get: op('listMeetingRecordings', 'List the recordings of a meeting') },
    '/meetings/{id}/polls': { get: op('listMeetingPolls', 'List the polls of a meeting') },
    '/past_meetings/{id}/participants': { get: op('listPastMeetingParticipants', 'List past meeting participants') },
    '/users/me': { get: op('getCurrentUser', 'Get the current user') },
  });
  const s = new OperationSearch(cat);
  // Nothing in "who attended the meeting?" names participants: asking who does.
  assert.equal(first(s, 'who attended the meeting?'), 'listPastMeetingParticipants');
  assert.equal(first(s, 'who am I?'), 'getCurrentUser');
  assert.equal(first(s, 'get the meeting'), 'getMeeting');
});

test('"turn the feature off" is disabling it, not "turn on"', () => {
  const cat = catalogueOf({
    '/features/{id}/disable': { post: op('disableFeature', 'Disable a feature') },
    '/features/{id}/enable': { post: op('enableFeature', 'Enable a feature') },
    '/features': { get: op('listFeatures', 'List features') },
  });
  const s = new OperationSearch(cat);
  // Nothing here says which but the particle: a bare "turn" (its small word dropped) must not decide it.
  assert.equal(first(s, 'turn the feature off'), 'disableFeature');
  assert.equal(first(s, 'switch the feature off'), 'disableFeature');
});

test('a request about many things that names no action reads many ("past invoices", "which teams do I belong to")', () => {
  const cat = catalogueOf({
    '/account/invoices/{invoiceId}': { get: op('getInvoice', 'Invoice View', { description: 'Returns a single invoice on your account.' }) },
    '/account/invoices': { get: op('getInvoices', 'Invoices List', { description: 'Returns a paginated list of invoices on your account.' }) },
    '/teams/{teamId}': { get: op('getTeam', 'Team View') },
    '/teams': { get: op('getTeams', 'Teams List') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'past invoices'), 'getInvoices');
  assert.equal(first(s, 'which teams do I belong to'), 'getTeams');
  // A singular, or a word that only ends in "s", is one thing.
  const read = (q: string) => readQuery(q, { vocabulary: new Set(), learned: {} }).many;
  assert.deepEqual([read('past invoices'), read('the invoice for March'), read('my canvas'), read('the alias of my domain')], [true, false, false, false]);
});

test('a function word matches only itself: "all" is not the start of "allowed", nor "not" of "notifications"', () => {
  const cat = catalogueOf({
    '/users': { get: op('listUsers', 'List users') },
    '/shares/{shareId}/allowedUsers': { get: op('listAllowedUsers', 'List allowed users of a share') },
    '/tasks': { get: op('listTasks', 'List tasks', { parameters: [{ name: 'completed', in: 'query', schema: { type: 'boolean' } }] }) },
    '/notifications/tasks': { get: op('listNotificationTasks', 'List notification tasks') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'list all users'), 'listUsers');
  assert.equal(first(s, 'tasks not completed'), 'listTasks');
});

test('a phrasal verb split by its object still reads as one ("turn my server back on" boots it, "switch the alerts off" disables them)', () => {
  const cat = catalogueOf({
    '/instances/{id}/boot': { post: op('bootInstance', 'Boot an instance') },
    '/instances/{id}/shutdown': { post: op('shutdownInstance', 'Shut down an instance') },
    '/instances/{id}/reboot': { post: op('rebootInstance', 'Reboot an instance') },
    '/instances/{id}': { get: op('getInstance', 'Get an instance') },
    '/alerts/enable': { post: op('enableAlerts', 'Enable alerts') },
    '/alerts/disable': { post: op('disableAlerts', 'Disable alerts') },
    '/alerts': { get: op('listAlerts', 'List alerts') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'turn my server back on'), 'bootInstance');
  assert.equal(first(s, 'switch the alerts off'), 'disableAlerts');
  assert.equal(first(s, 'turn the alerts on'), 'enableAlerts');
});

test('an operation the document gives no summary is summed up by its name ("list all devices" is devices_list, not connected-device_list)', () => {
  const cat = catalogueOf({
    '/dcim/connected-device/': {
      get: op('dcim_connected-device_list', undefined, {
        description: 'This endpoint allows a user to determine what device (if any) is connected to a given physical device and interface.',
      }),
    },
    '/dcim/devices/': { get: op('dcim_devices_list', undefined) },
    '/dcim/device-bays/': { get: op('dcim_device-bays_list', undefined) },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'list all devices'), 'dcim_devices_list');
  // Without an operationId, its method says what it does: `DELETE /users/{id}` is "delete user", not "user".
  const users = new OperationSearch(
    catalogueOf({
      '/users': {
        get: { summary: 'List users', responses: { 200: { description: 'ok' } } },
        post: { summary: 'Create a user', responses: { 201: { description: 'ok' } } },
      },
      '/users/{id}': { delete: { responses: { 204: { description: 'gone' } } } },
    }),
  );
  assert.equal(first(users, 'the users'), 'GET /users');
  assert.equal(first(users, 'delete user 42'), 'DELETE /users/{id}');
});

test('a short word stands for a longer one only as its longer form: "repo" is not the start of "report", "info" is of "information"', () => {
  const cat = catalogueOf({
    '/repositories': { get: op('listRepositories', 'List all public repositories') },
    '/repositories/{workspace}/{repo_slug}/commit/{commit}/reports': { get: op('getReportsForCommit', 'List reports') },
    '/team.info': { get: op('team_info', 'Gets information about the current team.') },
    '/team.billableInfo': { get: op('team_billableInfo', 'Gets billable users information for the current team.') },
  });
  const s = new OperationSearch(cat);
  assert.equal(first(s, 'list my repos'), 'listRepositories');
  assert.equal(first(s, 'get team info'), 'team_info');
});

test('a summary that could head any operation of its kind ("Inserts a new resource into this collection") gives way to the name', () => {
  const cat = catalogueOf({
    '/youtube/v3/videos': {
      post: op('youtube.videos.insert', 'Inserts a new resource into this collection.', {
        description: "Uploads a video to YouTube and optionally sets the video's metadata.",
      }),
      get: op('youtube.videos.list', 'Retrieves a list of resources, possibly filtered.'),
    },
    '/youtube/v3/videos/reportAbuse': { post: op('youtube.videos.reportAbuse', 'Report abuse for a video.') },
    '/youtube/v3/videos/rate': { post: op('youtube.videos.rate', 'Adds a like or dislike rating to a video or removes a rating from a video.') },
  });
  const s = new OperationSearch(cat);
  // Reporting abuse said "video" in its summary; inserting one said only "resource".
  assert.equal(first(s, 'upload a video'), 'youtube.videos.insert');
  assert.equal(first(s, 'report abuse on a video'), 'youtube.videos.reportAbuse');
});

test('a value in a request ("invoice 1234", "$1,200") is never the thing it is about; a word with a digit ("2fa", "mp4") may be', () => {
  const known = { vocabulary: new Set(['invoice', 'charge', 'wire', 'transfer', 'user', 'order', 'video']), learned: {} };
  const head = (q: string) => readQuery(q, known).head;
  assert.deepEqual(
    [
      'show invoice 1234',
      'refund charge ch_123 for 500',
      'void invoice in_1AB2',
      'get invoice#1234',
      'show order:10452',
      'get user/42',
      'wire $1,200 to account 987',
    ].map(head),
    ['invoice', 'charge', 'invoice', 'invoice', 'order', 'user', 'wire'],
  );
  assert.deepEqual(['enable 2fa for a user', 'upload an mp4', 'recent commits on the develop branch'].map(head), ['2fa', 'mp4', 'commit']);
});

test('a request that puts a person into a thing ("add someone to a channel") is after its members, like one that asks who', () => {
  const known = { vocabulary: new Set(['channel', 'member', 'user']), learned: {} };
  const who = (q: string) => readQuery(q, known).who;
  assert.deepEqual(['add someone to a channel', 'invite a user to my board', 'add alice@example.com to the envelope'].map(who), [true, true, true]);
  // No person, or no thing to put one into, or nobody put anywhere: an address the request sends to, a person it reads or removes.
  assert.deepEqual(['add a topic to a channel', 'create a user', 'list users'].map(who), [false, false, false]);
  assert.deepEqual(
    ['send invoice to customer bob@acme.com', 'list messages from alice@example.com', 'get the user for this ticket', 'delete a user from my account'].map(who),
    [false, false, false, false],
  );
  const cat = catalogueOf({
    '/chat/channels': { post: op('createChannel', 'Create a channel'), get: op('listChannels', 'List channels') },
    '/chat/channels/{id}': { patch: op('updateChannel', 'Update a channel') },
    '/chat/channels/{id}/members': { post: op('inviteChannelMembers', 'Invite channel members') },
  });
  assert.equal(first(new OperationSearch(cat), 'add people to a chat channel'), 'inviteChannelMembers');
});

test('the format a path answers in is no thing it acts on: `/order.list.json` lists orders, `/order.info.json` reads one', () => {
  const cat = catalogueOf({
    '/order.list.json': { get: op('OrderList', 'Get list of orders from store.') },
    '/order.info.json': {
      get: op('OrderInfo', 'Info about a specific order by ID', {
        parameters: [{ name: 'order_id', in: 'query', required: true, schema: { type: 'string' } }],
      }),
    },
    '/order.abandoned.list.json': { get: op('OrderAbandonedList', 'Get list of orders that were left by customers before completing the order.') },
  });
  const s = new OperationSearch(cat);
  const parts = (q: string, id: string) => partsOf(s, q, id);
  // Listing orders: OrderList lists ("Get list of…"), and orders (not `json`) are what it reads.
  const list = parts('list orders', 'OrderList');
  assert.ok(list.action! > 0 && list.resource! > 0 && list.object === 0, JSON.stringify(list));
  assert.equal(first(s, 'list orders'), 'OrderList');
  // `/order.info.json` reads one order: reading one is what it does, listing is not.
  assert.ok(parts('get order 10452', 'OrderInfo').action! > parts('get order 10452', 'OrderList').action!);
  assert.ok(parts('list orders', 'OrderInfo').action! < 0);
});

test('a view of a thing ("details of an order", "the data for this board") is about the thing', () => {
  const known = { vocabulary: new Set(['order', 'user', 'board', 'list']), learned: {} };
  const head = (q: string) => readQuery(q, known).head;
  assert.deepEqual(['get details of order 10452', 'show the details about a user', 'show me the data for this board'].map(head), ['order', 'user', 'board']);
  // A list is a thing where an API has lists: "the lists on a board" is about lists; a view of nothing named is the thing.
  assert.deepEqual(['get the lists on a board', 'order details', 'show details for me'].map(head), ['list', 'detail', 'detail']);
  // The view stays among what the request is about: an API may keep a user's data apart from the user.
  const cat = catalogueOf({
    '/users/{id}': { delete: op('deleteUser', 'Delete a user') },
    '/users/{id}/data': { delete: op('deleteUserData', "Delete a user's data") },
  });
  assert.equal(first(new OperationSearch(cat), 'delete data for a user'), 'deleteUserData');
});

test('a call-style GET that requires an id reads one, unless it says it reads many; a summary naming its thing otherwise is no generic one', () => {
  const required = { parameters: [{ name: 'id', in: 'query', required: true, schema: { type: 'string' } }] };
  const cat = catalogueOf({
    '/product': { get: op('getProduct', 'Product by id', required) },
    '/playlist.tracks': { get: op('playlistTracks', 'Get the tracks of a playlist', required) },
    '/clients/{id}': { patch: op('updateClient', 'Update a customer record'), delete: op('deleteClient', 'Delete a client') },
  });
  const s = new OperationSearch(cat);
  const action = (q: string, id: string) => partsOf(s, q, id).action!;
  assert.ok(action('get a product', 'getProduct') > action('list products', 'getProduct'));
  assert.ok(action('list the tracks of a playlist', 'playlistTracks') > action('get the tracks of a playlist', 'playlistTracks'));
  // "Update a customer record" names a customer: it is read as written, not as "patch client".
  assert.equal(first(s, 'update a customer'), 'updateClient');
});

test('a path ending in a parameter that filters (`/orders/status/{status}`) lists, one ending in an id reads one', () => {
  const cat = catalogueOf({
    '/orders.json': { get: op('listOrders', 'Retrieve all Orders.') },
    '/orders/{id}.json': { get: op('getOrder', 'Retrieve a single Order.') },
    '/orders/status/{status}.json': { get: op('listOrdersByStatus', 'Retrieve Orders filtered by Status.') },
  });
  const s = new OperationSearch(cat);
  const action = (q: string, id: string) => partsOf(s, q, id).action!;
  // Listing paid orders: the status filter lists them as well as the whole list does; reading one order does not.
  assert.equal(action('list orders by status', 'listOrdersByStatus'), action('list orders by status', 'listOrders'));
  assert.ok(action('list orders by status', 'getOrder') < 0);
  assert.equal(first(s, 'get order 330'), 'getOrder');
  // One of a collection of those very things, or of a format (`/users/{id}.{format}`), is one thing.
  const one = new OperationSearch(
    catalogueOf({
      '/categories/{category}': { get: op('categoryByName', 'Category by name') },
      '/users/{id}.{format}': { get: op('userById', 'User by id') },
    }),
  );
  assert.ok(partsOf(one, 'get a category', 'categoryByName').action! > partsOf(one, 'list categories', 'categoryByName').action!);
  assert.ok(partsOf(one, 'get a user', 'userById').action! > partsOf(one, 'list users', 'userById').action!);
});

test("an API's own words (its profile's `words`) are read at each search: Stripe's payment is a PaymentIntent; none is in the code of search", () => {
  const cat = catalogueOf({
    '/v1/payment_intents': { get: op('GetPaymentIntents', 'List all PaymentIntents') },
    '/v1/charges': { get: op('GetCharges', 'List all charges') },
    '/v1/refunds': { get: op('GetRefunds', 'List all refunds') },
  });
  const search = new OperationSearch(cat);
  const before = search.rank('list my recent payments').find((h) => h.op.id === 'GetPaymentIntents');
  search.useWords({ payment: ['intent'] });
  assert.equal(first(search, 'list my recent payments'), 'GetPaymentIntents');
  const after = search.rank('list my recent payments').find((h) => h.op.id === 'GetPaymentIntents')!;
  assert.ok(after.score > (before?.score ?? 0), 'the word the API uses counts');
  search.useWords(undefined);
  assert.deepEqual(
    search.rank('list my recent payments').find((h) => h.op.id === 'GetPaymentIntents')?.score,
    before?.score,
    'taken back, the search is as the document alone makes it',
  );
});
