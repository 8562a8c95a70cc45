# Records a run of examples/units in DIR (line-1), a failed one (line-2), and bad-input files beside it.
file(REMOVE ${DIR}/units.db ${DIR}/units.db-wal ${DIR}/units.db-shm ${DIR}/newer.db ${DIR}/newer-graph.db ${DIR}/other.db)
execute_process(COMMAND ${UNITS} WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "units failed (${rc}): ${out}")
endif()
# A second thread whose first step fails (line-2): the page shows a failure with its message.
execute_process(COMMAND ${UNITS} fail WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "research failed: unit u2 has no model configured for research")
  message(FATAL_ERROR "units fail did not record the failure (${rc}): ${out}")
endif()
# Fold the WAL into the file, so copies are whole.
execute_process(COMMAND ${SQLITE3} ${DIR}/units.db "PRAGMA wal_checkpoint(TRUNCATE);" RESULT_VARIABLE rc OUTPUT_QUIET)
file(COPY_FILE ${DIR}/units.db ${DIR}/newer.db)
file(COPY_FILE ${DIR}/units.db ${DIR}/newer-graph.db)
execute_process(COMMAND ${SQLITE3} ${DIR}/newer.db "UPDATE stategraph_store SET value = 99 WHERE key = 'schema_version';"
  RESULT_VARIABLE rc1)
execute_process(COMMAND ${SQLITE3} ${DIR}/newer-graph.db "UPDATE graphs SET description = '{\"format\":2}';"
  RESULT_VARIABLE rc2)
execute_process(COMMAND ${SQLITE3} ${DIR}/other.db "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('x');"
  RESULT_VARIABLE rc3)
file(WRITE ${DIR}/notes.txt "These are notes, not a database.\n")
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT rc3 EQUAL 0)
  message(FATAL_ERROR "could not make the bad-input files")
endif()
