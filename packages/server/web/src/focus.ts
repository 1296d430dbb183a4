/**
 * Whether the keyboard focus is nowhere the user put it: on the page itself, or on a control that was just disabled
 * or removed (the browser then drops it to <body>). Only then does the app move it — never away from where the user is.
 */
export function focusLost(): boolean {
  const active = document.activeElement as (Element & { disabled?: boolean }) | null;
  return !active || active === document.body || active.disabled === true || !active.isConnected;
}

/**
 * Moves a lost focus to the first control in `container` that takes it (a text box or an enabled button). `options`
 * as `focus()` takes them: `preventScroll` where what comes before the control must stay in view.
 */
export function refocusIn(
  container: Element | null | undefined,
  selector = 'textarea, button:not([disabled])',
  options?: FocusOptions,
) {
  if (container && focusLost()) container.querySelector<HTMLElement>(selector)?.focus(options);
}
