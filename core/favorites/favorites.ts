import { deleteItem, putItem, queryPage } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';

export interface Favorite {
  sceneId: number;
  createdAt: string;
}

/** A user's favorites, newest first. The sort key is the scene, so one favorite per scene. */
export async function listFavoritesNewestFirst(userId: string): Promise<Favorite[]> {
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': keys.favoritePrefix },
  });
  return items.map((item) => ({ sceneId: Number(item.sceneId), createdAt: item.createdAt as string })).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Adds a favorite unless it exists: the condition makes two concurrent adds keep exactly one. */
export async function addFavorite(userId: string, sceneId: number, now = new Date()): Promise<{ favorite: Favorite; created: boolean }> {
  const favorite = { sceneId, createdAt: now.toISOString() };
  try {
    await putItem({
      Item: { ...keys.favorite(userId, sceneId), entity: 'favorite', ...favorite },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    return { favorite, created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { favorite, created: false };
  }
}

export async function removeFavorite(userId: string, sceneId: number): Promise<boolean> {
  const removed = await deleteItem({ Key: keys.favorite(userId, sceneId), ReturnValues: 'ALL_OLD' });
  return removed !== undefined;
}
