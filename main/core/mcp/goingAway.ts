// What every transport answers a request still in flight when the companion
// goes (a signal, its data dir gone): a JSON-RPC error under the request's
// id, so no client waits for an answer that will never come.

export const GOING_AWAY = 'the Airlock companion is shutting down: this call was not completed; retry once it is back';
export const GOING_AWAY_CODE = -32000;
