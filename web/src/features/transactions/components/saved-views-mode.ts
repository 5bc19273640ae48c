/** What the Views control shows: nothing, the menu, or the dialog that saves the current view. */
export type ViewsMode = 'closed' | 'menu' | 'save';
