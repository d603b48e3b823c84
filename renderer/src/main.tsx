// Starts the renderer with the ControlApi of the shell it runs in: the
// preload bridge in Electron, the loopback web client in a browser. The rest
// of the UI never knows which. Console output, errors and uncaught
// exceptions go to the live log (source `ui`). The desktop app's small
// prompt window loads the same page at #/prompt: the prompt alone.
import { createRoot } from 'react-dom/client';
import { StrictMode } from 'react';
import { ControlProvider } from './api/ControlProvider.tsx';
import { bridge, createIpcControlApi } from './api/ipcControlApi.ts';
import { createWebControlApi } from './api/webControlApi.ts';
import { forwardConsole } from './api/uiLog.ts';
import { App } from './app/App.tsx';
import { PromptWindow, PROMPT_HASH } from './app/PromptWindow.tsx';
import { SignInGate } from './app/SignInGate.tsx';
import { completeWebLogin } from './api/webLogin.ts';
import './styles.css';

const b = bridge();
const api = b ? createIpcControlApi(b) : createWebControlApi();
const login = b ? 'none' : await completeWebLogin();
forwardConsole(api);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ControlProvider api={api}>
      <SignInGate loginFailed={login === 'failed'}>{location.hash === PROMPT_HASH ? <PromptWindow /> : <App />}</SignInGate>
    </ControlProvider>
  </StrictMode>,
);
