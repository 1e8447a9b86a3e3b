// One of the open folders, asked only when there are several.
import * as vscode from 'vscode';
import * as path from 'node:path';

export async function pickFolder(title: string, among: string[]): Promise<string | undefined> {
  if (among.length <= 1) return among[0];
  const pick = await vscode.window.showQuickPick(among.map((f) => ({ label: path.basename(f), description: f, folder: f })), { title });
  return pick?.folder;
}
