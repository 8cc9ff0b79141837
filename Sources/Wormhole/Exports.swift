// The on-disk vocabulary (traffic records, transiting types, identifier rules, names as bytes,
// JSON) lives in WormholeVocabulary, which has no I/O, so that the model and the views can use it
// without the library's threads and files. Users of the library get it with `import Wormhole`.
@_exported import WormholeVocabulary
