// search_docs' parts on their own: reading a query, typo correction, the
// features of an operation, its score's parts, and the named weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import { readQuery } from '../../main/core/search/queryParsing.ts';
import { clausesOf, commandFirst, splitCompounds, withoutLead } from '../../main/core/search/requestForms.ts';
import { typoCorrections } from '../../main/core/search/typoCorrection.ts';
import { operationFeatures } from '../../main/core/search/operationFeatures.ts';
import { returnedFields } from '../../main/core/search/operationText.ts';
import { okJson } from '../helpers/openApiShapes.ts';
import { scoreCandidate } from '../../main/core/search/scoring.ts';
import * as weights from '../../main/core/search/weights.ts';
import { isVerb } from '../../main/core/search/wordLists.ts';
import { corpusMeanings, corpusMethod } from '../../main/core/search/corpusVocabulary.ts';
import { candidates } from '../../main/core/search/searchIndex.ts';
import { joinSplitParticles } from '../../main/core/search/synonyms.ts';
import { extendsWord, stem } from '../../main/core/search/textProcessing.ts';

/** A catalogue of these paths, in a document that has nothing else. */
const catalogueOf = (paths: Record<string, unknown>) =>
  buildCatalogue({ openapi: '3.1.0', info: { title: 'Test', version: '1' }, paths } as Parameters<typeof buildCatalogue>[0]);

const vocabulary = new Set(['repo', 'workflow', 'run', 'webhook', 'project', 'task']);

test('a query is read once: its head noun, the things it places that in, its verb, a question, the asker', () => {
  const read = readQuery('list workflow runs for a repo', { vocabulary, learned: {} });
  assert.equal(read.head, 'run');
  assert.equal(read.asked, 'list');
  assert.equal(read.verb, 'list');
  assert.ok(read.owners.has('repo'));
  assert.equal(read.question, false);
  assert.equal(read.self, false);

  const mine = readQuery('which projects am I in', { vocabulary, learned: {} });
  assert.equal(mine.question, true);
  assert.equal(mine.self, true);

  // The document's prose taught that a "parcel" is a shipment: the head's words say so (and "cancel", used as a verb, may name what it makes).
  const taught = readQuery('cancel a parcel', { vocabulary, learned: { parcel: ['shipment'] } });
  assert.deepEqual([...taught.heads].sort(), ['cancel', 'parcel', 'shipment']);
  assert.deepEqual([...taught.learnedTerms], ['shipment']);
});

test("the action a request asks is its main verb's; one opening with a verb of no action and not of reading writes", () => {
  const read = (q: string) => readQuery(q, { vocabulary, learned: {} });
  // "get" is in a later clause: following a task asks no built-in action.
  assert.equal(read('follow a task so I get notified').asked, undefined);
  assert.equal(read('notify my server whenever a project changes').asked, undefined);
  assert.equal(read('get a task').asked, 'get');
  assert.equal(read('show me the tasks I follow').asked, 'list');
  // A group's earliest wording counts: "show" opens the request, not "all" later.
  assert.equal(read('show me all my tasks').asked, 'list');
  assert.equal(read('show me all my tasks').command, false);
  // The way a request is put does not hide its verb.
  assert.equal(read('how do I follow a task so I get notified').asked, undefined);
  assert.equal(read('how do I follow a task so I get notified').verb, 'follow');
  assert.equal(read('please bookmark this song').command, true);
  assert.equal(read('I want to delete a task').asked, 'delete');
  assert.equal(read('please').asked, undefined);
  assert.equal(read('let me delete a branch').asked, 'delete');
  assert.equal(read('help us delete a branch').asked, 'delete');
  // Things, not verbs, open these: a plural, an adverb.
  for (const q of ['commits in a repository', 'refunds on my account', 'only my repos', 'labels on this issue']) assert.equal(read(q).command, false, q);
  assert.equal(read('a task to delete').asked, 'delete');
  // Ending something favours deleting it.
  assert.equal(read('stop following a user').command, true);
  assert.equal(read('stop following a user').ending, true);
  assert.equal(read('follow a user').ending, false);
  assert.equal(read('comment puis-je supprimer un événement').asked, 'delete');
  assert.ok(!read('comment puis-je supprimer un événement').queryTerms.includes('comment'));
  assert.equal(withoutLead('How do I archive a card?'), 'archive a card');
  assert.equal(withoutLead('archive a card'), 'archive a card');
  // A request with no verb first keeps the action its wording names.
  assert.equal(read('tasks to delete').asked, 'delete');
  assert.equal(read('follow a task so I get notified').command, true);
  assert.equal(read('bookmark this song').command, true);
  // "like" is a stop word, but it opens this request as a verb the vocabulary knows.
  assert.equal(read('like this song').command, true);
  assert.equal(read('remind me to submit my timesheet').command, true);
  assert.equal(read('check my saved tracks').command, false);
  assert.equal(read('which tasks do I follow').command, false);
  assert.equal(read('delete a task').command, false);
});

test('typo correction fixes unknown words to the nearest catalogue word, never a real English word', () => {
  assert.deepEqual([...typoCorrections('webhoks for a repositry', ['webhok', 'repositry'], vocabulary)], [['webhok', 'webhook']]);
  // "note" is one edit from "vote", but it is a word the person meant.
  assert.deepEqual([...typoCorrections('note', ['note'], new Set(['vote']))], []);
  // A prefix of a catalogue word is not a typo.
  assert.deepEqual([...typoCorrections('workf', ['workf'], vocabulary)], []);
});

test('a word search knows nothing of, whose halves the index holds, is read as two ("tracklist" → "track list")', () => {
  const index = new Set(['track', 'list', 'album', 'charge', 'back', 'web', 'hook', 'webhook']);
  assert.equal(
    splitCompounds('tracklist for an album', index, () => false),
    'track list for an album',
  );
  // A word the index holds, or begins (webhooks), or search knows otherwise (a built-in word), is left whole.
  assert.equal(
    splitCompounds('list webhooks', index, () => false),
    'list webhooks',
  );
  assert.equal(
    splitCompounds('list chargebacks', index, (t) => t === 'chargeback'),
    'list chargebacks',
  );
  // A word that begins an index word is meant as written.
  assert.equal(
    splitCompounds('tracklist', new Set(['track', 'list', 'tracklisting']), () => false),
    'tracklist',
  );
  // The halves must be index words.
  assert.equal(
    splitCompounds('tracklists', new Set(['album', 'track']), () => false),
    'tracklists',
  );
  assert.equal(readQuery('tracklist for an album', { vocabulary: index, learned: {} }).queryTerms.join(' '), 'track list album');
});

test('the fields an operation returns are read without its links and ids, through arrays and a wrapper', () => {
  const string = { type: 'string' };
  const item = { type: 'object', properties: { id: string, node_id: string, html_url: string, userId: string, tempo: string } };
  const schema = { type: 'object', properties: { data: { type: 'array', items: item }, _links: { type: 'object' }, total: { type: 'integer' } } };
  const catalogue = catalogueOf({ '/features': { get: { operationId: 'features.list', responses: okJson(schema) } } });
  assert.deepEqual(returnedFields(catalogue.operations[0]!), ['data', 'tempo', 'total']);
});

test("each part of a score is a named weight: a request in the operation's words earns them, one asking for another action loses", () => {
  const catalogue = catalogueOf({
    '/projects/{id}/tasks': { get: { operationId: 'tasks.list', summary: 'List tasks', responses: { 200: { description: 'ok' } } } },
  });
  const op = catalogue.operations[0]!;
  const f = operationFeatures(op, {}, new Set());
  assert.equal(f.action, 'list');
  assert.equal(f.resource, 'task');
  assert.deepEqual(f.segments, [['project'], ['task']]);
  const scored = (q: string) => scoreCandidate(op, f, readQuery(q, { vocabulary, learned: {} }), 1);
  const { SCORE_WEIGHTS: S, ACTION_FIT: A, SUMMARY_CREDITS: SU } = weights;
  const inItsWords = scored('list tasks in a project');
  assert.deepEqual(Object.keys(inItsWords.parts), [
    'recall',
    'coverage',
    'summary',
    'action',
    'verb',
    'method',
    'self',
    'who',
    'onEvent',
    'resource',
    'niche',
    'owner',
    'unexplained',
    'object',
  ]);
  // Every word explained: full coverage, the summary matched as written, the same action, its owner named, nothing left over.
  assert.deepEqual(
    [inItsWords.parts.recall, inItsWords.parts.coverage, inItsWords.parts.summary, inItsWords.parts.action, inItsWords.parts.verb],
    [S.recall, S.coverage, SU.direct * S.summary, A.same, S.verb],
  );
  assert.deepEqual([inItsWords.parts.resource, inItsWords.parts.owner], [S.resource, S.owner]);
  assert.ok(inItsWords.parts.unexplained === 0, 'nothing left unexplained');
  // The resource alone: no verb, the project segment unexplained.
  const bare = scored('tasks');
  assert.deepEqual([bare.parts.verb, bare.parts.owner, bare.parts.unexplained], [0, 0, -S.unexplainedSegment]);
  // Another action: the action part turns against it.
  const other = scored('delete tasks');
  assert.equal(other.parts.action, A.other);
  assert.ok(inItsWords.score > bare.score && bare.score > other.score, `${inItsWords.score} > ${bare.score} > ${other.score}`);
});

test('a verb is told from a noun', () => {
  assert.ok(isVerb('duplicate') && isVerb('delete') && !isVerb('project'));
});

test('a query word that names a property of every object (constructor, toString) is read as a word, not a crash', () => {
  for (const word of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    const read = readQuery(`${word} of a repo`, { vocabulary, learned: { repo: ['repository'] } });
    assert.deepEqual([...read.learnedTerms], ['repository'], word);
    assert.equal(isVerb(word), false, word);
  }
});

test('the corpus vocabulary gives a query word only the name words this API uses, and its verb the method most APIs give it', () => {
  // "access" stands for "permission" across many APIs (corpusVocabulary.json): an API with permissions gains the word, one without does not.
  assert.deepEqual(
    corpusMeanings('access', (w) => w === 'permission'),
    ['permission'],
  );
  assert.deepEqual(
    corpusMeanings('access', () => false),
    [],
  );
  assert.deepEqual(
    corpusMeanings('constructor', () => true),
    [],
  );
  const read = readQuery('access for a repo', { vocabulary: new Set(['repo', 'permission']), learned: {} });
  assert.deepEqual([...read.corpusTerms], ['permission']);
  assert.ok(read.explained.has('permission'));
  // What the document teaches comes first: a word it gives a meaning gains nothing from the corpus.
  const taught = readQuery('access for a repo', { vocabulary: new Set(['repo', 'permission']), learned: { access: ['collaborator'] } });
  assert.deepEqual([...taught.corpusTerms], []);
  assert.equal(corpusMethod('trigger'), 'POST');
  assert.equal(readQuery('trigger a build', { vocabulary, learned: {} }).verbMethod, 'POST');
  // A verb the built-in vocabulary does not know, wherever it stands in the request.
  assert.equal(corpusMethod('unregister'), 'DELETE');
  assert.equal(readQuery('unregister device 5', { vocabulary, learned: {} }).verbMethod, 'DELETE');
  assert.equal(readQuery('how do I unregister a device', { vocabulary, learned: {} }).verbMethod, 'DELETE');
  // A summary's first word that is a noun ("Customer list") is not learnt as a verb.
  assert.equal(corpusMethod('customer'), undefined);
  assert.equal(readQuery('customer on hold', { vocabulary, learned: {} }).verbMethod, undefined);
  // A query that names a built-in action is read by it, not by the corpus.
  assert.equal(readQuery('delete a build', { vocabulary, learned: {} }).verbMethod, undefined);
});

test("recall hands re-ranking at least 40 operations, and 1 % of a very large document's (Microsoft Graph's 11,422: 115)", () => {
  assert.equal(candidates(12), weights.CANDIDATES);
  assert.equal(candidates(3000), weights.CANDIDATES);
  assert.equal(candidates(5457), 55);
  assert.equal(candidates(11422), 115);
});

test('every wording of a synonym group the request holds counts, not only its first ("upload and attach a file": both)', () => {
  const read = readQuery('upload and attach a file to the card', { vocabulary: new Set(['upload', 'attachment', 'card']), learned: {} });
  const group = read.stemmedGroups.find((g) => g.expansions.includes('attachment'));
  assert.deepEqual([...(group?.words ?? [])].sort(), ['attach', 'upload']);
});

test('a command whose verb names no action favours making, then changing, and rarely deletes; one that clears something deletes', () => {
  const catalogue = catalogueOf({
    '/meetings': { post: { operationId: 'meetingCreate', summary: 'Create a meeting', responses: { 201: { description: 'ok' } } } },
    '/meetings/{id}': {
      patch: { operationId: 'meetingUpdate', summary: 'Update a meeting', responses: { 200: { description: 'ok' } } },
      delete: { operationId: 'meetingDelete', summary: 'Delete a meeting', responses: { 204: { description: 'gone' } } },
    },
  });
  const action = (query: string) =>
    Object.fromEntries(
      catalogue.operations.map((op) => [
        op.id,
        scoreCandidate(op, operationFeatures(op, {}, new Set()), readQuery(query, { vocabulary, learned: {} }), 1).parts.action,
      ]),
    );
  const schedule = action('schedule a meeting');
  assert.ok(schedule.meetingCreate! > schedule.meetingUpdate! && schedule.meetingUpdate! > 0 && schedule.meetingDelete! < 0, JSON.stringify(schedule));
  const clear = action('clear the meeting');
  assert.ok(clear.meetingDelete! > clear.meetingUpdate! && clear.meetingUpdate! > 0, JSON.stringify(clear));
});

test('a phrasal verb split by its object is read whole only where its particle ends the verb phrase', () => {
  assert.equal(joinSplitParticles('turn my server back on'), 'turn on my server');
  assert.equal(joinSplitParticles('switch the alerts off for user 42'), 'switch off the alerts for user 42');
  assert.equal(joinSplitParticles('spin servers up'), 'spin up servers');
  for (const q of [
    'turn comments on a post into tasks',
    'turn left on Main street',
    'switch to dark mode on the dashboard',
    'set the rate limit up to 500',
    'turn off notifications on my phone',
  ])
    assert.equal(joinSplitParticles(q), q);
});

test('a request that sets the scene before it says what to do is read command first', () => {
  assert.equal(commandFirst('a discovery scan is taking forever, kill it'), 'kill it a discovery scan is taking forever');
  assert.equal(commandFirst('my postage balance is low; please top it up'), 'top it up my postage balance is low');
  assert.equal(commandFirst('the staging server is stuck - restart it'), 'restart it the staging server is stuck');
  // The ways a request is put go, however many and wherever they are.
  assert.equal(commandFirst('please, my balance is low, top it up'), 'top it up my balance is low');
  assert.equal(commandFirst('the scan is stuck, could you please kill it'), 'kill it the scan is stuck');
  for (const q of [
    'take Bob off the project team, he no longer works on it', // the command comes first already
    'list invoices for acme, inc.', // so it does here
    'invoices from last month, unpaid ones only', // no clause opens with a verb
    'the note says "done, ship it"', // the comma is inside a quotation
    'archive a card',
  ])
    assert.equal(commandFirst(q), q);
  assert.deepEqual(clausesOf('re-run the job , , then — wait; 1,000 rows, “a, b”'), ['re-run the job', 'then', 'wait', '1,000 rows', '“a, b”']);
  // Its verb is the command's: killing ends something, so a deletion or a stop is favoured, not reading the scan.
  const read = readQuery('a discovery scan is taking forever, kill it', { vocabulary: new Set(['scan', 'task', 'stop']), learned: {} });
  assert.deepEqual([read.command, read.ending, read.mainVerb], [true, true, 'kill']);
});

test('a request asks who when "who" opens it or follows a verb of showing, not in a relative clause nor about the asker', () => {
  const known = { vocabulary: new Set(['user', 'issue', 'attendee']), learned: {} };
  const who = (q: string) => readQuery(q, known).who;
  assert.deepEqual(['who attended the meeting?', "who's following this ticket?", 'show me who is on this team'].map(who), [true, true, true]);
  assert.deepEqual(['get the issue and the user who created it', 'who am I?', 'show me who I am'].map(who), [false, false, false]);
  // Recall searches the words for people this API uses.
  assert.deepEqual(readQuery('who attended the meeting?', known).peopleTerms.sort(), ['attendee', 'user']);
});

test('a request to be told when something happens subscribes: its webhooks gain, and "get" is no read there', () => {
  const catalogue = catalogueOf({
    '/webhooks': { post: { operationId: 'createWebhook', summary: 'Create a webhook', responses: { 200: { description: 'ok' } } } },
    '/boards/{id}': { get: { operationId: 'getBoard', summary: 'Get a board', responses: { 200: { description: 'ok' } } } },
  });
  const [webhook, board] = catalogue.operations;
  const known = { vocabulary: new Set(['webhook', 'board', 'get', 'create']), learned: {} };
  const read = readQuery('get a callback when a board changes', known);
  assert.deepEqual([read.onEvent, read.asked, read.verb], [true, 'create', undefined]);
  const part = (op: typeof webhook) => scoreCandidate(op!, operationFeatures(op!, {}, new Set()), read, 1).parts.onEvent;
  assert.deepEqual([part(webhook), part(board)], [0.3, 0]);
  // No "when", nothing that tells, or a question of when: no subscription.
  for (const q of [
    'get a webhook',
    'make sure the scans never get purged when the disk fills up',
    'when was this webhook created?',
    'when did I get notified?',
  ])
    assert.equal(readQuery(q, known).onEvent, false, q);
  assert.equal(readQuery('get a webhook', known).asked, 'get');
  // Getting what was sent when something happened reads it: only "get notified", "get a callback"… subscribe.
  const deliveries = readQuery('get the webhook deliveries made when a build failed', known);
  assert.deepEqual([deliveries.onEvent, deliveries.asked, deliveries.verb], [true, 'get', 'get']);
  assert.equal(readQuery('get notified whenever a board changes', known).asked, 'create');
});

test('a short word stands for a longer form of itself, not for another word it starts', () => {
  const pairs = (list: [string, string][]) => list.map(([word, start]) => extendsWord(stem(word), stem(start)));
  assert.deepEqual(
    pairs([
      ['boxes', 'box'],
      ['taxes', 'tax'],
      ['tagged', 'tag'],
      ['payment', 'pay'],
      ['information', 'info'],
      ['deployments', 'deploy'],
    ]),
    [true, true, true, true, true, true],
  );
  assert.deepEqual(
    pairs([
      ['report', 'repo'],
      ['user', 'use'],
      ['author', 'auth'],
      ['ping', 'pin'],
      ['allowed', 'all'],
    ]),
    [false, false, false, false, false],
  );
});
