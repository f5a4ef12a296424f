/** What every entry of `_active_tasks` reports, whatever the task (CouchDB's couch_task_status). */
export interface TaskProgress {
  database: string;
  changes_done: number;
  total_changes: number;
  progress: number;
  started_on: number;
  updated_on: number;
  pid: string;
}
