/**
 * The alerts of the error catalogue ('Download failed. Please try again.', 'Error
 * reported successfully...') as toasts: announced by screen readers (role=status/alert),
 * dismissable, and gone after a few seconds unless they must stay until dismissed, as
 * a confirmation the user may otherwise miss does.
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export type ToastKind = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
}

export interface NotifyOptions {
  /** Stays until the user dismisses it, like the alert it stands for. */
  untilDismissed?: boolean;
}

type Notify = (message: string, kind?: ToastKind, options?: NotifyOptions) => void;
const ToastContext = createContext<Notify>(() => {});

const TOAST_MS = 6000;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((current) => current.filter((toast) => toast.id !== id)), []);
  const notify = useCallback<Notify>(
    (message, kind = 'info', options = {}) => {
      const id = nextId.current++;
      setToasts((current) => [...current.slice(-3), { id, kind, message }]);
      if (!options.untilDismissed) window.setTimeout(() => dismiss(id), TOAST_MS);
    },
    [dismiss],
  );
  const value = useMemo(() => notify, [notify]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((toast) => (
          <div key={toast.id} className={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
            <span>{toast.message}</span>
            <button type="button" className="toast-close" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useNotify(): Notify {
  return useContext(ToastContext);
}
