// The sandbox's interactive shell in xterm.js over Paddock's terminal WebSocket; re-attaches to the same
// session after a reload (see remembered-terminal.ts).
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { PageTitle } from '../../../components/PageTitle';
import { Id } from '../../../components/format';
import { SandboxTabs } from '../SandboxTabs';
import { forgetTerminal, rememberedTerminal, rememberTerminal } from './remembered-terminal';
import { closeReason, openTerminalSocket, sendInput, sendResize, sessionStillAlive } from './terminal-socket';
import './tools.css';

type Connection = { state: 'connecting' } | { state: 'connected'; session: string; reattached: boolean } | { state: 'closed'; message: string } | { state: 'failed'; message: string };

function connectionText(connection: Connection): string {
  switch (connection.state) {
    case 'connecting':
      return 'Connecting…';
    case 'connected':
      return connection.reattached ? 'Connected (re-attached to the running shell)' : 'Connected';
    case 'closed':
      return `Disconnected. ${connection.message}`;
    case 'failed':
      return `Could not connect: ${connection.message}`;
  }
}

export default function TerminalPage() {
  const { id = '' } = useParams();
  const screenRef = useRef<HTMLDivElement>(null);
  const terminalRef = useRef<{ terminal: Terminal; fit: FitAddon } | null>(null);
  const socketRef = useRef<WebSocket | null>(null);
  const [connection, setConnection] = useState<Connection>({ state: 'connecting' });
  // Bumped by "Reconnect" and "New shell" to open the socket again.
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const terminal = new Terminal({ cursorBlink: true, fontSize: 14, lineHeight: 1.2, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', scrollback: 5000 });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(screenRef.current!);
    fit.fit();
    terminalRef.current = { terminal, fit };
    const input = terminal.onData((data) => socketRef.current && sendInput(socketRef.current, data));
    const binary = terminal.onBinary((data) => socketRef.current && sendInput(socketRef.current, data, true));
    const resized = terminal.onResize(({ cols, rows }) => socketRef.current && sendResize(socketRef.current, cols, rows));
    const onWindowResize = () => fit.fit();
    window.addEventListener('resize', onWindowResize);
    terminal.focus();
    return () => {
      window.removeEventListener('resize', onWindowResize);
      input.dispose();
      binary.dispose();
      resized.dispose();
      terminal.dispose();
      terminalRef.current = null;
    };
  }, [id]);

  useEffect(() => {
    const { terminal } = terminalRef.current!;
    let cancelled = false;
    let socket: WebSocket | null = null;
    setConnection({ state: 'connecting' });
    void (async () => {
      try {
        let session = rememberedTerminal(id);
        if (session && !(await sessionStillAlive(id, session))) {
          forgetTerminal(id);
          session = null;
        }
        if (cancelled) return;
        socket = await openTerminalSocket(
          id,
          { session, cols: terminal.cols, rows: terminal.rows },
          {
            output: (bytes) => terminal.write(bytes),
            control: (message) => {
              if (message.type === 'session') {
                rememberTerminal(id, message.id);
                setConnection({ state: 'connected', session: message.id, reattached: message.reattached });
              } else if (message.type === 'exit') {
                forgetTerminal(id);
                terminal.write(`\r\n[the shell exited with code ${message.exit_code}]\r\n`);
              } else terminal.write(`\r\n[terminal: ${message.message}]\r\n`);
            },
            closed: (code) => {
              if (cancelled) return;
              // 4001: another window took this session over; 1000/4004: it ended. Either way not ours to reopen.
              if (code === 1000 || code === 4000 || code === 4004) forgetTerminal(id);
              setConnection({ state: 'closed', message: closeReason(code) });
            },
          },
        );
        if (cancelled) socket.close();
        else socketRef.current = socket;
      } catch (error) {
        if (!cancelled) setConnection({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    })();
    return () => {
      cancelled = true;
      socket?.close();
      socketRef.current = null;
    };
  }, [id, attempt]);

  function newShell() {
    forgetTerminal(id);
    terminalRef.current?.terminal.reset();
    setAttempt((n) => n + 1);
  }

  const live = connection.state === 'connected' || connection.state === 'connecting';
  return (
    <>
      <PageTitle title="Terminal">
        <Id value={id} />
      </PageTitle>
      <SandboxTabs id={id} />
      <div className="tool-bar">
        <p role="status" aria-live="polite" className={`terminal-state terminal-${connection.state}`}>
          {connectionText(connection)}
        </p>
        {!live && (
          <button type="button" className="button primary" onClick={() => setAttempt((n) => n + 1)}>
            Reconnect
          </button>
        )}
        <button type="button" className="button" onClick={newShell}>
          New shell
        </button>
      </div>
      <div className="terminal-screen" ref={screenRef} data-testid="terminal" />
    </>
  );
}
