/** The shapes a catalogue scene is made of, used by the catalogue and by the price calculator. */
export type SceneType = 'text' | 'image' | 'sound' | '3D' | 'video';
export type RenderMode = 'still' | 'animation';
export const RENDER_MODES: readonly RenderMode[] = ['still', 'animation'];

export interface ByMode<T> {
  still: T;
  animation: T;
}
