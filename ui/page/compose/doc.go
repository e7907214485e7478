// Package compose is the console's Compose page: it composes a job — the
// nodes (picked by host, or any N), cores, the application and its declared
// parameters (apps/gridapp), scheme and detector, and the submitter →
// coordinator → worker hierarchy — and checks it live as `gridtui run`
// would (engine.PlanJob on the probed network table). It produces a
// jobs.Spec. The page does no I/O: saving and loading a job file and
// starting a run are messages to the root (SaveSpecMsg, LoadSpecMsg,
// StartRunMsg, and their confirmations), which answers with SpecSavedMsg,
// SpecLoadedMsg and, when the run ends, RunEndedMsg. The Predict panel asks
// package predict for every scheme's outlook in a command, after a short
// debounce (PredictDebounce) and for the newest request only.
package compose
