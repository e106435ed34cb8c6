// @ts-check
/**
 * `@` completion in the message box and the thread reply box, as Slack's client does it: typing `@` offers the
 * workspace's people and user groups; choosing one (click, Enter or Tab) puts `@name` in the text and remembers
 * who it is. On sending, each chosen `@name` becomes the mention Slack sends: `<@U…|name>` or
 * `<!subteam^S…|@handle>` in a slash command's text (the command escapes them, manifest `should_escape: true`),
 * `<@U…>` or `<!subteam^S…>` in a message event. A person's name typed out without being chosen stays plain text;
 * a user group's handle typed out in full is the group, as Slack's composer recognises it.
 */

/** Someone `@` can name: a person (PagePerson) or a user group (id `S…`, its handle as `name`). */
/** @typedef {{ id: string, name: string, realName: string, role: string }} PagePerson */
/** @typedef {{ id: string, handle: string, name: string }} PageUserGroup */

import { byId, esc } from './dom.js';

/** Per text box: the names chosen from the list, and who they are. */
const chosen = new WeakMap(/** @type {[HTMLTextAreaElement, Map<string, string>][]} */ ([]));
/** @type {{ box: HTMLTextAreaElement, start: number, matches: PagePerson[], active: number } | null} */
let open = null;

/** @param {HTMLTextAreaElement} box */
function namesOf(box) {
  let names = chosen.get(box);
  if (!names) {
    names = new Map();
    chosen.set(box, names);
  }
  return names;
}

/**
 * Makes `box` offer people after `@`.
 * @param {HTMLTextAreaElement} box
 * @param {() => PagePerson[]} people
 */
export function attachMentions(box, people) {
  const menu = byId('mention-menu', HTMLUListElement);
  box.addEventListener('input', () => update(box, people()));
  box.addEventListener('click', () => update(box, people()));
  box.addEventListener('blur', () => close());
  box.addEventListener('keydown', (event) => {
    if (!open || open.box !== box) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      open.active = (open.active + step + open.matches.length) % open.matches.length;
      draw();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      // Enter chooses the highlighted person instead of sending (the send handler sees defaultPrevented).
      event.preventDefault();
      const person = open.matches[open.active];
      if (person) pick(person);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close();
    }
  });
  // mousedown, not click: the text box keeps its focus (a blur would close the list first).
  menu.addEventListener('mousedown', (event) => {
    const item = event.target instanceof Element ? event.target.closest('[data-person]') : null;
    if (!(item instanceof HTMLElement) || !open) return;
    event.preventDefault();
    const person = open.matches.find((p) => p.id === item.dataset.person);
    if (person) pick(person);
  });
}

/**
 * @param {HTMLTextAreaElement} box
 * @param {PagePerson[]} people
 */
function update(box, people) {
  const before = box.value.slice(0, box.selectionStart);
  const m = /(^|[\s(,:])@([\w.-]{0,30})$/.exec(before);
  if (!m) return close();
  const typed = (m[2] ?? '').toLowerCase();
  const matches = people.filter(
    (p) =>
      p.name.toLowerCase().startsWith(typed) ||
      p.realName
        .toLowerCase()
        .split(/\s+/)
        .some((w) => w.startsWith(typed)),
  );
  if (matches.length === 0) return close();
  const active = open && open.box === box ? Math.min(open.active, matches.length - 1) : 0;
  open = { box, start: before.length - typed.length - 1, matches, active };
  draw();
}

function draw() {
  const menu = byId('mention-menu', HTMLUListElement);
  if (!open) return;
  menu.innerHTML = open.matches
    .map(
      (p, i) =>
        `<li role="option" data-person="${esc(p.id)}" aria-selected="${i === open?.active}"><strong>@${esc(p.name)}</strong> <span class="muted">${esc(p.realName)} · ${esc(p.role)}</span></li>`,
    )
    .join('');
  const box = open.box.getBoundingClientRect();
  menu.style.left = `${Math.round(box.left)}px`;
  menu.style.bottom = `${Math.round(window.innerHeight - box.top + 4)}px`;
  menu.hidden = false;
  open.box.setAttribute('aria-expanded', 'true');
}

function close() {
  byId('mention-menu', HTMLUListElement).hidden = true;
  open?.box.setAttribute('aria-expanded', 'false');
  open = null;
}

/** @param {PagePerson} person */
function pick(person) {
  if (!open) return;
  const box = open.box;
  const end = box.selectionStart;
  const inserted = `@${person.name} `;
  box.value = box.value.slice(0, open.start) + inserted + box.value.slice(end);
  const caret = open.start + inserted.length;
  box.setSelectionRange(caret, caret);
  namesOf(box).set(person.name, person.id);
  close();
  box.focus();
}

/**
 * Puts text into a box as if these people had been chosen from the list (the Try these panel's examples).
 * @param {HTMLTextAreaElement} box
 * @param {string} text
 * @param {PagePerson[]} people
 */
export function fillWithMentions(box, text, people) {
  box.value = text;
  const names = namesOf(box);
  names.clear();
  for (const p of people) if (text.includes(`@${p.name}`)) names.set(p.name, p.id);
}

/**
 * The text as Slack sends it: chosen `@name`s as mentions. Forgets the choices (the box is being emptied).
 * @param {HTMLTextAreaElement} box
 * @param {string} text
 * @param {boolean} command a slash command's text (escaped `<@U…|name>`) rather than a message (`<@U…>`)
 * @param {PageUserGroup[]} [groups] the workspace's user groups (a handle typed in full names its group)
 */
export function takeMentions(box, text, command, groups = []) {
  const names = namesOf(box);
  const encoded = text.replace(/(^|[\s(,:])@([\w.-]+)/g, (whole, lead, name) => {
    const id = names.get(name) ?? groups.find((g) => g.handle === name)?.id;
    if (!id) return whole;
    if (id.startsWith('S')) return `${lead}${command ? `<!subteam^${id}|@${name}>` : `<!subteam^${id}>`}`;
    return `${lead}${command ? `<@${id}|${name}>` : `<@${id}>`}`;
  });
  names.clear();
  return encoded;
}
