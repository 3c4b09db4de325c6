/**
 * The one accessible modal: role=dialog with aria-modal, labelled by its title; focus
 * moves into it on open, Tab cycles inside it, Escape closes it, the page behind is
 * inert, and focus returns to the element that opened it when it closes.
 */
import { useEffect, useEffectEvent, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE =
  'a[href], area[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), iframe, [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

let openModals = 0;

export interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons row at the bottom. */
  footer?: ReactNode;
  size?: 'small' | 'medium' | 'large';
  /** While a payment is in flight the modal must not be dismissed. */
  dismissable?: boolean;
  /** Id of an element that describes the dialog (e.g. the confirmation text). */
  describedBy?: string;
}

export function Modal({ title, onClose, children, footer, size = 'medium', dismissable = true, describedBy }: ModalProps) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  // Escape reads the latest props without re-running the open/close effect.
  const onEscape = useEffectEvent(() => {
    if (!dismissable) return false;
    onClose();
    return true;
  });

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const root = document.getElementById('root');
    openModals += 1;
    root?.setAttribute('inert', '');
    document.body.classList.add('modal-open');
    const node = panel.current;
    const first = node?.querySelector<HTMLElement>('[data-autofocus]') ?? node?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? node)?.focus();

    const onKeyDown = (event: KeyboardEvent) => {
      if (!node) return;
      if (event.key === 'Escape') {
        if (onEscape()) event.stopPropagation();
        return;
      }
      if (event.key !== 'Tab') return;
      const focusable = [...node.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
      if (focusable.length === 0) {
        event.preventDefault();
        node.focus();
        return;
      }
      const firstEl = focusable[0];
      const lastEl = focusable[focusable.length - 1];
      if (event.shiftKey && (document.activeElement === firstEl || document.activeElement === node)) {
        event.preventDefault();
        lastEl.focus();
      } else if (!event.shiftKey && document.activeElement === lastEl) {
        event.preventDefault();
        firstEl.focus();
      } else if (!node.contains(document.activeElement)) {
        event.preventDefault();
        firstEl.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown, true);
    return () => {
      document.removeEventListener('keydown', onKeyDown, true);
      openModals -= 1;
      if (openModals === 0) {
        root?.removeAttribute('inert');
        document.body.classList.remove('modal-open');
      }
      if (opener && document.contains(opener)) opener.focus();
    };
  }, []);

  return createPortal(
    <div
      className="modal-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget && dismissable) onClose();
      }}
    >
      <div
        ref={panel}
        className={`modal modal-${size}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
      >
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          {dismissable && (
            <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
              <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
                <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
              </svg>
            </button>
          )}
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>,
    document.body,
  );
}
