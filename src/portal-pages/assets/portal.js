// The portal works without this script; with it, a shown key and code snippets get a copy button.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const input = document.getElementById(button.dataset.copy);
  if (!input || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    await navigator.clipboard.writeText(input.value ?? input.textContent);
    button.textContent = button.dataset.copied;
  });
}
for (const input of document.querySelectorAll('.secret-value')) {
  input.addEventListener('focus', () => input.select());
}
