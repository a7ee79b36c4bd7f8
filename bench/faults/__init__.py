"""The parts of bench/faults_load.py (the load fault test), in the order of its steps: the
generated knowledge base (knowledge_base), the clients' mixed read/write workload (workload), the
service's RSS and Neo4j transactions sampled during the load (samples), the verification of
every write afterwards and the clean-up (verification), and the closing table (report).
bench/faults_load.py parses the options, starts the service and runs them in order.
"""
