// A file chosen with an <input type="file"> or dropped on a zone: `onFile`
// gets the first one. The zone also opens the chooser from the keyboard
// (Enter or Space), since a drop needs a mouse.
export function onFileChosen(input, zone, onFile) {
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) onFile(file);
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const file = e.dataTransfer?.files?.[0];
    if (file) onFile(file);
  });
  zone.addEventListener('keydown', (e) => {
    if (e.target === zone && (e.key === 'Enter' || e.key === ' ')) input.click();
  });
}
